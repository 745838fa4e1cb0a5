/**
 * What other packages' tests may use of the server, as `@entry/server/testing`: e2e runs the real
 * app in its own worker, with a clock it moves, and writes its fixtures through the schema.
 */
export { buildApp } from '../src/app.ts';
export { type Clock, loadConfig } from '../src/config.ts';
export { openDatabase } from '../src/db/index.ts';
export {
  consumers,
  identityTokens,
  sessions,
  staffUsers,
  tenants,
} from '../src/db/schema.ts';
export type { DemoData } from '../src/demo/demo-file.ts';
export { ensureDemoData } from '../src/demo/seed.ts';
export { hashVerificationValue } from '../src/services/keyed-hash.ts';
export { hashPassword } from '../src/services/passwords.ts';
export { totpCodeAt } from '../src/services/second-factor-secrets.ts';
export { resolvePepper } from '../src/services/secrets.ts';
export { generateShortId } from '../src/stores/identity-token-ids.ts';
export { type ReceivedMail, startSmtpServer } from './helpers/smtp.ts';

import type { Config } from '../src/config.ts';
import type { Database } from '../src/db/index.ts';
import { sealSecret } from '../src/services/second-factor-secrets.ts';
import { resolveSecondFactorKey } from '../src/services/secrets.ts';
import { addConfirmedTotp } from '../src/stores/second-factors.ts';

/**
 * Gives a staff user of a test a confirmed authenticator app with the base32 `secret`, sealed as
 * the server seals it (its `SECOND_FACTOR_KEY`, or the key derived from its pepper); its codes
 * come from `totpCodeAt(secret, clock.now())`.
 */
export async function enrolStaffTotp(
  db: Database,
  seal: { config: Config; pepper: string },
  staffUserId: number,
  secret: string,
): Promise<void> {
  const key = resolveSecondFactorKey(seal.config, seal.pepper);
  await addConfirmedTotp(db, staffUserId, sealSecret(key, secret), seal.config.clock.now());
}
