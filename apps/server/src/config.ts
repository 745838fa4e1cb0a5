import path from 'node:path';
import { z } from 'zod';
import {
  blankToUndefined,
  ConfigError,
  markerList,
  optionalText,
  parseTrustProxy,
  port,
  positiveInt,
  withSecretsFromFiles,
} from './config-values.ts';

/** Time as the server sees it; tests pass a clock they move forward instead of sleeping. */
export interface Clock {
  now(): Date;
}

const systemClock: Clock = { now: () => new Date() };

export interface Config {
  port: number;
  bindAddress: string;
  publicDomain: string;
  publicScheme: 'http' | 'https';
  /** The port in built URLs; empty for the scheme's default port. */
  publicPort: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** How long start-up waits for PostgreSQL to answer before it gives up. */
  databaseWaitSeconds: number;
  /** PostgreSQL's bound on one statement; a request past it is answered 503. */
  databaseStatementTimeoutMs: number;
  /** The tighter bound on each statement of a sign-in, refresh or lookup, so a frozen database is answered soon. */
  databaseSignInTimeoutMs: number;
  redisUrl: string | undefined;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: where traces go (OTLP/HTTP); none are made while unset. */
  otlpEndpoint: string | undefined;
  smtpUrl: string | undefined;
  /**
   * Where mail goes: `smtp` to SMTP_URL, `log` to standard output. Undefined when none was chosen
   * outside a trial, which the server refuses to start with (`requireMailTransport`).
   */
  mailTransport: MailTransport | undefined;
  /** How long an SMTP server may take to connect, to greet and to answer; a send ends after three of them. */
  smtpTimeoutSeconds: number;
  mailFrom: string;
  authSigningKey: string | undefined;
  /** KBA_PEPPER. */
  pepper: string | undefined;
  /** SECOND_FACTOR_KEY: the 32-byte AES-256-GCM key sealing authenticator secrets; else derived from the pepper. */
  secondFactorKey: Buffer | undefined;
  rateLimitFailures: number;
  /** The bearer token that lets a client other than loopback read `/api/metrics`. */
  metricsToken: string | undefined;
  /** Fastify's trustProxy: false, a hop count, or the proxies' addresses/CIDRs; never every hop. */
  trustProxy: false | number | string[];
  adminDomainMarkers: string[];
  dashDomainMarkers: string[];
  accessTokenMinutes: number;
  refreshTokenMinutes: number;
  /** Absolute age of every session: no refresh renews it past this, no call accepts it after. */
  sessionMaxMinutes: number;
  /** Staff and admin pages sign out after this long without activity. */
  staffIdleMinutes: number;
  /** On SIGTERM/SIGINT the server has exited within this long, whatever its clients do. */
  shutdownGraceSeconds: number;
  /** Where the built web app lives (apps/web/dist). */
  webDistDir: string;
  logLevel: string;
  /** `pretty` for a person at a terminal, `json` for a log store; `auto` picks by standard output. */
  logFormat: 'json' | 'pretty' | 'auto';
  /** MIGRATE: whether `serve` and the operator commands apply pending migrations on PostgreSQL. */
  migrate: boolean;
  clock: Clock;
}

export type MailTransport = 'smtp' | 'log';

/** The database settings' defaults, for callers that open a database without a whole Config. */
export const databaseDefaults = {
  waitSeconds: 30,
  statementTimeoutMs: 10_000,
  signInTimeoutMs: 3000,
} as const;

const defaultWebDist = path.resolve(import.meta.dirname, '../../web/dist');

const environmentSchema = z.object({
  PORT: z.preprocess(blankToUndefined, port.default(8080)),
  BIND_ADDRESS: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  PUBLIC_DOMAIN: z.preprocess(
    blankToUndefined,
    z
      .string()
      .toLowerCase()
      .regex(/^[a-z0-9.-]+$/, 'must be a host name such as example.com')
      .default('localhost'),
  ),
  PUBLIC_SCHEME: z.preprocess(
    blankToUndefined,
    z.enum(['http', 'https'], { error: 'must be http or https' }).default('http'),
  ),
  PUBLIC_PORT: z
    .string()
    .regex(/^\d{0,5}$/, 'must be a port number or empty')
    .refine((value) => value === '' || Number(value) <= 65_535, 'must be a port number or empty')
    .optional(),
  DATA_DIR: z.preprocess(blankToUndefined, z.string().default('./.data')),
  DATABASE_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// connection string')
      .optional(),
  ),
  DATABASE_WAIT_SECONDS: z.preprocess(blankToUndefined, positiveInt.default(databaseDefaults.waitSeconds)),
  DATABASE_STATEMENT_TIMEOUT_MS: z.preprocess(
    blankToUndefined,
    positiveInt.default(databaseDefaults.statementTimeoutMs),
  ),
  DATABASE_SIGN_IN_TIMEOUT_MS: z.preprocess(
    blankToUndefined,
    positiveInt.default(databaseDefaults.signInTimeoutMs),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^https?:\/\/[^/]/, 'must be an http:// or https:// URL')
      .optional(),
  ),
  REDIS_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  SMTP_URL: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_TRANSPORT: z.preprocess(
    blankToUndefined,
    z.enum(['smtp', 'log'], { error: 'must be smtp or log' }).optional(),
  ),
  SMTP_TIMEOUT_SECONDS: z.preprocess(blankToUndefined, positiveInt.default(10)),
  MAIL_FROM: z.preprocess(blankToUndefined, z.string().optional()),
  AUTH_SIGNING_KEY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .includes('PRIVATE KEY', { message: 'must be an Ed25519 private key in PKCS#8 PEM' })
      .optional(),
  ),
  KBA_PEPPER: z.preprocess(blankToUndefined, z.string().min(16, 'must be at least 16 characters').optional()),
  SECOND_FACTOR_KEY: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((value) => Buffer.from(value, 'base64'))
      .refine((key) => key.length === 32, 'must be the base64 of 32 bytes')
      .optional(),
  ),
  RATE_LIMIT_FAILURES: z.preprocess(blankToUndefined, positiveInt.default(30)),
  TRUST_PROXY: optionalText,
  METRICS_TOKEN: z.preprocess(
    blankToUndefined,
    z.string().min(16, 'must be at least 16 characters').optional(),
  ),
  ADMIN_DOMAIN_MARKERS: z.preprocess(blankToUndefined, markerList.default(['admin'])),
  DASH_DOMAIN_MARKERS: z.preprocess(blankToUndefined, markerList.default(['dash'])),
  ACCESS_TOKEN_MINUTES: z.preprocess(blankToUndefined, positiveInt.default(15)),
  REFRESH_TOKEN_MINUTES: z.preprocess(blankToUndefined, positiveInt.default(60)),
  SESSION_MAX_MINUTES: z.preprocess(blankToUndefined, positiveInt.default(720)),
  STAFF_IDLE_MINUTES: z.preprocess(blankToUndefined, positiveInt.default(30)),
  SHUTDOWN_GRACE_SECONDS: z.preprocess(blankToUndefined, positiveInt.default(10)),
  WEB_DIST_DIR: z.preprocess(blankToUndefined, z.string().default(defaultWebDist)),
  LOG_LEVEL: z.preprocess(
    blankToUndefined,
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'must be one of fatal, error, warn, info, debug, trace, silent',
      })
      .default('info'),
  ),
  LOG_FORMAT: z.preprocess(
    blankToUndefined,
    z.enum(['json', 'pretty', 'auto'], { error: 'must be json, pretty or auto' }).default('auto'),
  ),
  MIGRATE: z.preprocess(
    blankToUndefined,
    z
      .enum(['0', '1'], { error: 'must be 1 (apply pending migrations) or 0' })
      .default('0')
      .transform((value) => value === '1'),
  ),
});

/** The port as built URLs show it: empty for the scheme's default port. */
function defaultPublicPort(scheme: 'http' | 'https', port: number | string): string {
  const schemeDefault = scheme === 'https' ? '443' : '80';
  return String(port) === schemeDefault ? '' : String(port);
}

/**
 * A trial: the embedded database over plain http, where the demo data is seeded and mail may go
 * to the console. Anything else is a deployment.
 */
export function isTrial(config: Pick<Config, 'databaseUrl' | 'publicScheme'>): boolean {
  return config.databaseUrl === undefined && config.publicScheme === 'http';
}

function mailTransportOf(
  chosen: MailTransport | undefined,
  smtpUrl: string | undefined,
  trial: boolean,
): MailTransport | undefined {
  if (chosen === 'smtp' && smtpUrl === undefined)
    throw new ConfigError('MAIL_TRANSPORT', 'is smtp but SMTP_URL is not set');
  if (chosen !== undefined) return chosen;
  if (smtpUrl !== undefined) return 'smtp';
  return trial ? 'log' : undefined;
}

/**
 * The mail transport a server may start with. Outside a trial mail carries reset links and codes,
 * so printing it needs MAIL_TRANSPORT=log said outright.
 */
export function requireMailTransport(config: Pick<Config, 'mailTransport'>): MailTransport {
  if (config.mailTransport === undefined) {
    throw new ConfigError(
      'SMTP_URL',
      'must be set with DATABASE_URL or PUBLIC_SCHEME=https (or set MAIL_TRANSPORT=log to write mail to standard output)',
    );
  }
  return config.mailTransport;
}

/**
 * Reads the environment once at start. A bad value throws a ConfigError naming the variable, so
 * the process can stop with a message a person can act on.
 */
export function loadConfig(
  given: Record<string, string | undefined> = process.env,
  clock: Clock = systemClock,
): Config {
  const { env, fromFiles } = withSecretsFromFiles(given);
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(
      fromFiles.has(variable) ? `${variable}_FILE` : variable,
      issue?.message ?? 'is invalid',
    );
  }
  const e = parsed.data;
  const publicPort = defaultPublicPort(e.PUBLIC_SCHEME, e.PUBLIC_PORT === undefined ? e.PORT : e.PUBLIC_PORT);
  return {
    port: e.PORT,
    bindAddress: e.BIND_ADDRESS,
    publicDomain: e.PUBLIC_DOMAIN,
    publicScheme: e.PUBLIC_SCHEME,
    publicPort,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseWaitSeconds: e.DATABASE_WAIT_SECONDS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseSignInTimeoutMs: e.DATABASE_SIGN_IN_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    otlpEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    smtpUrl: e.SMTP_URL,
    mailTransport: mailTransportOf(
      e.MAIL_TRANSPORT,
      e.SMTP_URL,
      isTrial({ databaseUrl: e.DATABASE_URL, publicScheme: e.PUBLIC_SCHEME }),
    ),
    smtpTimeoutSeconds: e.SMTP_TIMEOUT_SECONDS,
    mailFrom: e.MAIL_FROM ?? `no-reply@${e.PUBLIC_DOMAIN}`,
    authSigningKey: e.AUTH_SIGNING_KEY,
    pepper: e.KBA_PEPPER,
    secondFactorKey: e.SECOND_FACTOR_KEY,
    rateLimitFailures: e.RATE_LIMIT_FAILURES,
    metricsToken: e.METRICS_TOKEN,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    adminDomainMarkers: e.ADMIN_DOMAIN_MARKERS,
    dashDomainMarkers: e.DASH_DOMAIN_MARKERS,
    accessTokenMinutes: e.ACCESS_TOKEN_MINUTES,
    refreshTokenMinutes: e.REFRESH_TOKEN_MINUTES,
    sessionMaxMinutes: e.SESSION_MAX_MINUTES,
    staffIdleMinutes: e.STAFF_IDLE_MINUTES,
    shutdownGraceSeconds: e.SHUTDOWN_GRACE_SECONDS,
    webDistDir: path.resolve(e.WEB_DIST_DIR),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    migrate: e.MIGRATE,
    clock,
  };
}

/** `http://localhost:8080`, or with a tenant subdomain `http://sender.localhost:8080`. */
export function publicOrigin(config: Config, subdomain?: string): string {
  const host = subdomain === undefined ? config.publicDomain : `${subdomain}.${config.publicDomain}`;
  const port = config.publicPort === '' ? '' : `:${config.publicPort}`;
  return `${config.publicScheme}://${host}${port}`;
}

/** The admin and customer portals live on the apps host. */
export function appsOrigin(config: Config): string {
  return publicOrigin(config, 'apps');
}
