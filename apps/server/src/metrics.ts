import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseHandle } from './db/index.ts';
import type { DependencyStatus } from './dependency-outages.ts';
import { refuse } from './refusals.ts';

/**
 * What an operator watches (docs/operations.md, "Metrics"): requests by route and status with
 * their latency, audit events (sign-in outcomes and locks among them), mail, the outbox, the
 * database's queue, the dependencies' state and the event loop, in Prometheus' text format at
 * `GET /api/metrics`.
 */

export interface OutboxBacklog {
  unsent: number;
  /** How long the oldest unsent mail has waited, in seconds; 0 when none waits. */
  oldestUnsentSeconds: number;
}

export interface ServerMetrics {
  readonly registry: Registry;
  /** An audit event: a sign-in's outcome and reason, a lock, a revocation. */
  auditEvent(event: string, outcome: string, reason: unknown): void;
  mailSendFailed(): void;
}

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const auditEvents = new Counter({
    name: 'entry_audit_events_total',
    help: 'Audit events by event, outcome and reason: sign-in outcomes, locks set and refused, revocations.',
    labelNames: ['event', 'outcome', 'reason'] as const,
    registers: [registry],
  });
  const mailFailures = new Counter({
    name: 'entry_mail_send_failures_total',
    help: 'Mails the SMTP server did not accept; each stays in the outbox for a later attempt.',
    registers: [registry],
  });
  return {
    registry,
    auditEvent(event, outcome, reason) {
      auditEvents.inc({ event, outcome, reason: typeof reason === 'string' ? reason : '' });
    },
    mailSendFailed() {
      mailFailures.inc();
    },
  };
}

const loopback = /^(127\.|::1$|::ffff:127\.)/;

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Headers a proxy adds to what it relays. */
const forwardingHeaders = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
];

/**
 * Loopback clients, and others only with `Authorization: Bearer $METRICS_TOKEN`. A proxy on the same
 * host connects from loopback too: a request it forwards, known by its forwarding headers, needs the token.
 */
function mayScrape(request: FastifyRequest, token: string | undefined): boolean {
  const relayed = forwardingHeaders.some((name) => request.headers[name] !== undefined);
  if (!relayed && loopback.test(request.ip)) return true;
  const presented = request.headers.authorization?.match(/^Bearer (.+)$/)?.[1];
  if (token === undefined || presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(token));
}

/**
 * Counts every request when it ends (by its route's pattern, so the labels stay few) and serves
 * the metrics; the gauges are read when they are scraped.
 */
export function installMetrics(
  app: FastifyInstance,
  options: {
    metrics: ServerMetrics;
    database: DatabaseHandle;
    dependencies: DependencyStatus;
    outboxBacklog(): Promise<OutboxBacklog>;
    metricsToken: string | undefined;
  },
): void {
  const { registry } = options.metrics;
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'entry_http_requests_total',
    help: 'Requests answered, by method, route pattern and status (429 among them).',
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'entry_http_request_duration_seconds',
    help: 'Time from the request to its answer, by method, route pattern and status.',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'entry_database_waiting',
    help: "Statements waiting for the database: for a connection of PostgreSQL's pool, or for PGlite's thread.",
    registers: [registry],
    collect() {
      this.set(options.database.waiting());
    },
  });
  // Both outbox gauges come from one read per scrape: prom-client collects them side by side.
  let backlogRead: Promise<OutboxBacklog> | undefined;
  const readBacklog = () => {
    backlogRead ??= options
      .outboxBacklog()
      .catch(() => ({ unsent: Number.NaN, oldestUnsentSeconds: Number.NaN }))
      .finally(() => setImmediate(() => (backlogRead = undefined)));
    return backlogRead;
  };
  new Gauge({
    name: 'entry_outbox_unsent',
    help: 'Mails in the outbox not yet sent.',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).unsent);
    },
  });
  new Gauge({
    name: 'entry_outbox_oldest_unsent_seconds',
    help: 'How long the oldest unsent mail has waited.',
    registers: [registry],
    async collect() {
      this.set((await readBacklog()).oldestUnsentSeconds);
    },
  });
  new Gauge({
    name: 'entry_dependency_unavailable',
    help: '1 while a dependency cannot answer: the database (API calls answer 503) or Redis (failure counts kept per instance).',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      const { databaseUnavailable, sharedCountersUnavailable } = options.dependencies;
      this.set({ dependency: 'database' }, databaseUnavailable() === undefined ? 0 : 1);
      this.set({ dependency: 'redis' }, sharedCountersUnavailable() === undefined ? 0 : 1);
    },
  });

  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  app.get('/api/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
    if (!mayScrape(request, options.metricsToken)) throw refuse('metricsRefused');
    reply.header('Cache-Control', 'no-store').type(registry.contentType);
    return registry.metrics();
  });
}
