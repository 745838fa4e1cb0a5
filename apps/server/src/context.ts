import type { Clock, Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { DependencyStatus } from './dependency-outages.ts';
import type { AuditLog } from './services/audit.ts';
import type { SigningKeys } from './services/keys.ts';
import type { MailService } from './services/mail.ts';
import type { SessionService } from './services/sessions.ts';

/** What every route and service gets: built once in buildApp, passed explicitly. */
export interface AppContext {
  config: Config;
  clock: Clock;
  db: Database;
  audit: AuditLog;
  keys: SigningKeys;
  sessions: SessionService;
  mail: MailService;
  /**
   * KBA_PEPPER (or the one generated into DATA_DIR): keys every stored hash of what a consumer
   * answers (verification values, one-time codes) and the token-less budgets' keys.
   */
  pepper: string;
  /** Signs the email-subscription tokens; derived from the pepper. */
  subscriptionKey: Buffer;
  /** Seals the staff users' authenticator secrets (SECOND_FACTOR_KEY, or derived from the pepper). */
  secondFactorKey: Buffer;
  /** Whether the database and the shared failure counts answer (the readiness probe reads it). */
  dependencies: DependencyStatus;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
