import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import pg from 'pg';
import type { StartedSpan } from '../tracer.ts';
import { startSpan } from '../tracing.ts';

/**
 * A tighter bound on the statements of the calls a person waits on (sign-ins, refreshes,
 * lookups), within the pool's longer one: imports, exports and background work keep that.
 * The bound follows the call through every await, so no store has to pass it along.
 */
const callBoundMs = new AsyncLocalStorage<number>();

/** Runs `work` with every PostgreSQL statement it sends answered within `boundMs` or failed. */
export function withStatementBound<T>(boundMs: number, work: () => T): T {
  return callBoundMs.run(boundMs, work);
}

type UntypedCall = (this: unknown, ...args: unknown[]) => unknown;
const unboundQuery = pg.Client.prototype.query as unknown as UntypedCall;
const poolConnect = pg.Pool.prototype.connect as unknown as UntypedCall;

/**
 * node-postgres' client with a per-statement `query_timeout` while a bound is in force, and a
 * span per statement while traces are on. A statement past the bound fails as "Query read
 * timeout" (an outage, answered 503) and the pool drops its connection.
 */
export class StatementBoundClient extends pg.Client {}

/**
 * node-postgres' pool, handing each connection over in the context of the caller that asked for
 * it, not of the caller that gave the connection back: the bound and the span are the caller's.
 */
export class CallerContextPool extends pg.Pool {}

function endWith(span: StartedSpan | undefined, args: unknown[]): unknown[] {
  if (span === undefined) return args;
  const last = args.length - 1;
  const callback = args[last];
  if (typeof callback !== 'function') return args;
  const ended = (error: unknown, result: unknown) => {
    span.end(error ?? undefined);
    callback(error, result);
  };
  return [...args.slice(0, last), ended];
}

const boundQuery: UntypedCall = function boundQuery(config, ...rest) {
  const boundMs = callBoundMs.getStore();
  const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
  const span =
    typeof text === 'string'
      ? startSpan('pg.query', { 'db.system.name': 'postgresql', 'db.query.text': text })
      : undefined;
  let bounded = config;
  if (boundMs !== undefined) {
    if (typeof config === 'string') bounded = { text: config, query_timeout: boundMs };
    // A submittable (a cursor, a stream) is the query itself and keeps its own object.
    else if (typeof config === 'object' && config !== null && !('submit' in config))
      bounded = { ...config, query_timeout: boundMs };
  }
  const args = endWith(span, rest);
  const result = unboundQuery.call(this, bounded, ...args);
  if (span !== undefined && args === rest && result instanceof Promise) {
    result.then(
      () => span.end(),
      (error: unknown) => span.end(error),
    );
  }
  return result;
};
StatementBoundClient.prototype.query = boundQuery as unknown as pg.Client['query'];

const connectInCallerContext: UntypedCall = function connectInCallerContext(callback) {
  return typeof callback === 'function'
    ? poolConnect.call(this, AsyncResource.bind(callback as UntypedCall))
    : poolConnect.call(this);
};
CallerContextPool.prototype.connect = connectInCallerContext as unknown as pg.Pool['connect'];
