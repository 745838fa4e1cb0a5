import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { apiDocsPath, registerApiDocs } from './api-docs.ts';
import { type Config, requireMailTransport } from './config.ts';
import type { AppContext } from './context.ts';
import { type DatabaseHandle, openDatabase } from './db/index.ts';
import { installDatabaseOutageGuard } from './dependency-outages.ts';
import { handleError } from './errors.ts';
import { redactedLogPaths, redactUrl } from './log-redaction.ts';
import { createServerMetrics, installMetrics } from './metrics.ts';
import { openApiOptions } from './openapi.ts';
import { refuse } from './refusals.ts';
import { installCrossSiteGuard, installJsonBodies, installNulGuard } from './request-guards.ts';
import { OneLinePerRequest, requestLogger } from './request-log.ts';
import { bindTrace, requestIdOf } from './request-trace.ts';
import { routePlugins } from './routes/index.ts';
import { installSecurityHeaders, securityHeaderOptions } from './security-headers.ts';
import { pageOrganization } from './services/access.ts';
import { createAuditLog } from './services/audit.ts';
import { connectFailureCounts } from './services/failure-counts-fallback.ts';
import { loadSigningKeys } from './services/keys.ts';
import { createMailService } from './services/mail.ts';
import { createConsoleMailer, createSmtpMailer, type Mailer } from './services/mail-transports.ts';
import {
  type FailureCountStore,
  installFailureLimiter,
  MemoryFailureCountStore,
} from './services/rate-limit.ts';
import { startPruning } from './services/retention.ts';
import { resolvePepper, resolveSecondFactorKey } from './services/secrets.ts';
import { createSessionService } from './services/sessions.ts';
import { subscriptionTokenKey } from './services/subscriptions-token.ts';
import { startTracing } from './tracing.ts';
import { fastifyTrustProxy } from './trusted-proxies.ts';
import { registerWeb } from './web.ts';

export interface AppDeps {
  /** An open database; without one, buildApp opens (and on close, closes) the configured one. */
  database?: DatabaseHandle;
  mailer?: Mailer;
  failureStore?: FailureCountStore;
  /** false silences the logs (tests); otherwise pino JSON at config.logLevel. */
  logger?: boolean;
  /** Where the JSON log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void };
  /** Where the console mailer writes when mail goes to the log (MAIL_TRANSPORT). */
  consoleWrite?: (text: string) => void;
}

const bodyLimitBytes = 64 * 1024;
/** A request's headers and body must have arrived within this long, so slow clients hold nothing. */
const requestArrivalMs = 10_000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A sign-in step, refresh or lookup a person waits on: its statements get DATABASE_SIGN_IN_TIMEOUT_MS. */
    signInBound?: boolean;
  }
}

/**
 * Registers everything (plugins, error handling, API routes, the web app) and does not listen:
 * main.ts listens, tests listen on port 0.
 */
export async function buildApp(config: Config, deps: AppDeps = {}): Promise<FastifyInstance> {
  const pepper = resolvePepper(config);
  const ownsDatabase = deps.database === undefined;
  const database = deps.database ?? (await openDatabase(config));

  const app = Fastify({
    logger:
      deps.logger === false
        ? false
        : {
            level: config.logLevel,
            ...(deps.logStream === undefined ? {} : { stream: deps.logStream }),
            redact: { paths: redactedLogPaths, censor: '[redacted]' },
            serializers: {
              req: (request: { method: string; url: string; headers: { host?: string }; ip: string }) => ({
                method: request.method,
                url: redactUrl(request.url),
                host: request.headers.host,
                remoteAddress: request.ip,
              }),
            },
          },
    logController: new OneLinePerRequest(config.logFormat === 'pretty' ? 'debug' : 'info'),
    childLoggerFactory: requestLogger,
    genReqId: requestIdOf(config),
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: bodyLimitBytes,
    requestTimeout: requestArrivalMs,
    // Node checks the arrival deadlines every half minute unless told otherwise.
    http: { headersTimeout: requestArrivalMs, connectionsCheckingInterval: 1000 },
    // A close ends the idle keep-alive connections at once; a request still arriving on a busy one
    // is answered (with `Connection: close`) rather than refused with Fastify's own 503 body.
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    routerOptions: { maxParamLength: 512 },
    // A path Fastify cannot decode (`/access/%`) is answered before routing; it gets the error body too.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(handleError);
  const tracing = await startTracing(config);
  // Before every other hook, so the request's span holds them all.
  if (tracing !== undefined) await app.register(tracing.fastifyPlugin);
  const { availability, reportBackgroundError } = installDatabaseOutageGuard(app, database);

  let sharedCounts: Awaited<ReturnType<typeof connectFailureCounts>> | undefined;
  try {
    const clock = config.clock;
    let failureStore = deps.failureStore;
    if (failureStore === undefined && config.redisUrl !== undefined) {
      sharedCounts = await connectFailureCounts(config.redisUrl, (reason) => {
        if (reason === undefined) app.log.warn('failure counts are shared through Redis again');
        else app.log.warn({ reason }, "Redis unreachable: failure counts kept in this instance's memory");
      });
      failureStore = sharedCounts.store;
    }
    const metrics = createServerMetrics();
    const audit = createAuditLog(database.db, clock, (entry) =>
      metrics.auditEvent(entry.event, entry.outcome, entry.detail?.reason),
    );
    const keys = await loadSigningKeys(database.db, config);
    const sessions = createSessionService({ db: database.db, config, keys, audit });
    const mailer =
      deps.mailer ??
      (requireMailTransport(config) === 'smtp' && config.smtpUrl !== undefined
        ? createSmtpMailer(config.smtpUrl, config.smtpTimeoutSeconds * 1000)
        : createConsoleMailer(deps.consoleWrite));
    const mail = createMailService({
      db: database.db,
      config,
      clock,
      mailer,
      audit,
      pepper,
      onError: (error) => reportBackgroundError(error, 'mail delivery failed'),
      onSendFailed: () => metrics.mailSendFailed(),
      onDropped: (mails) =>
        app.log.warn(
          { mailIds: mails.map((dropped) => dropped.id) },
          'mail dropped unsent: what it carried had expired',
        ),
    });
    const ctx: AppContext = {
      config,
      clock,
      db: database.db,
      audit,
      keys,
      sessions,
      mail,
      pepper,
      subscriptionKey: subscriptionTokenKey(pepper),
      secondFactorKey: resolveSecondFactorKey(config, pepper),
      dependencies: {
        databaseUnavailable: () => availability.unavailable,
        sharedCountersUnavailable: () => sharedCounts?.store.awayReason,
      },
    };
    app.decorate('ctx', ctx);

    installFailureLimiter(app, {
      store: failureStore ?? new MemoryFailureCountStore(),
      limit: config.rateLimitFailures,
      clock,
    });
    installCrossSiteGuard(app, config);
    installMetrics(app, {
      metrics,
      database,
      dependencies: ctx.dependencies,
      outboxBacklog: () => mail.backlog(),
      metricsToken: config.metricsToken,
    });

    // The hooks every request passes through take callbacks: no promise per request on the hot reads.
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('x-request-id', request.id);
      bindTrace(request, reply);
      done();
    });

    // A graceful close waits for requests in flight; their answers end the connection, so
    // keep-alive clients let go and the close can finish.
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      // Fastify closes the connection on an oversized body, so a client still sending it meets a
      // reset instead of the 413. Node reads the rest and drops it instead, within requestArrivalMs,
      // unless the client itself asked to close: then Fastify's own close answers it whole.
      else if (reply.statusCode === 413 && request.headers.connection?.toLowerCase() !== 'close')
        reply.removeHeader('connection');
      done(null, payload);
    });

    installNulGuard(app);
    installJsonBodies(app);

    await app.register(fastifyCookie);
    installSecurityHeaders(app, securityHeaderOptions(config));
    await app.register(fastifySwagger, openApiOptions(config));

    // A person waits on every step of a sign-in, on a refresh and on a lookup: their statements get
    // the tighter bound, so a frozen database is answered 503 within seconds.
    app.addHook('onRoute', (route) => {
      if (route.config?.signInBound !== true) return;
      const handler = route.handler;
      route.handler = function signInBoundHandler(request, reply) {
        return database.withSignInBound(() => handler.call(this, request, reply));
      };
    });
    for (const plugin of routePlugins) await app.register(plugin(ctx));

    app.get(`${apiDocsPath}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
    registerApiDocs(app);

    const sendIndex = await registerWeb(app, config, (subdomain) => pageOrganization(ctx, subdomain));
    app.setNotFoundHandler((request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      if (
        path.startsWith('/api/') ||
        path === '/api' ||
        (request.method !== 'GET' && request.method !== 'HEAD')
      ) {
        throw refuse('routeNotFound');
      }
      return sendIndex(request, reply);
    });

    mail.startRetries();
    const stopPruning = startPruning(database.db, clock, (error) =>
      reportBackgroundError(error, 'deleting ended sessions and sent mail failed'),
    );
    app.addHook('onClose', async () => {
      mail.stop();
      await mail.idle();
      mailer.close?.();
      await stopPruning();
      sharedCounts?.close();
      if (ownsDatabase) await database.close();
      await tracing?.shutdown();
    });
    return app;
  } catch (error) {
    sharedCounts?.close();
    await tracing?.shutdown();
    if (ownsDatabase) await database.close();
    throw error;
  }
}
