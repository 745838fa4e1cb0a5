import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';

/**
 * One log line per request, written when it ends, with what Fastify splits over two: every line
 * costs the server's thread and the log shipper (decision record 010). The start line stays at
 * `debug`, for a request that never ends. For a person reading a terminal, the request lines are
 * `debug` too, so the demo's links and mails do not scroll away.
 */
export class OneLinePerRequest extends LogController {
  readonly #completedLevel: 'info' | 'debug';

  constructor(completedLevel: 'info' | 'debug' = 'info') {
    super();
    this.#completedLevel = completedLevel;
  }

  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log[this.#completedLevel](fields, 'request completed');
  }
}

/** Each logger's children with no bindings of their own, one per level (`''` for the logger's own). */
const requestLoggerParents = new WeakMap<FastifyBaseLogger, Map<string, FastifyBaseLogger>>();

function requestLoggerParent(logger: FastifyBaseLogger, level: string | undefined): FastifyBaseLogger {
  let byLevel = requestLoggerParents.get(logger);
  if (byLevel === undefined) {
    byLevel = new Map();
    requestLoggerParents.set(logger, byLevel);
  }
  const key = level ?? '';
  let parent = byLevel.get(key);
  if (parent === undefined) {
    parent = level === undefined ? logger.child({}) : logger.child({}, { level });
    byLevel.set(key, parent);
  }
  return parent;
}

/**
 * Each request's logger (its `reqId`, at its route's level) as a child of a parent made once per
 * level. pino makes a child cheaply only when it is given no options; Fastify always gives some
 * (`{}`, or the route's level), so every request paid for pino's whole child: its formatters built
 * again and, on a route with a level of its own (the hot reads), every level method set again.
 * Options other than the level (a route's log serializers) still get a child of their own.
 */
export const requestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  if (Object.keys(options).some((option) => option !== 'level')) return logger.child(bindings, options);
  return requestLoggerParent(logger, options.level).child(bindings);
};
