/**
 * What other packages' tests may use of the server, as `@entry/server/testing`: e2e runs the real
 * app in its own worker, with a clock it moves, and writes its fixtures through the schema.
 */
export { buildApp } from '../src/app.ts';
export { type Clock, loadConfig } from '../src/config.ts';
export { openDatabase } from '../src/db/index.ts';
export { consumers, identityTokens, type StaffKind, staffUsers, tenants } from '../src/db/schema.ts';
export { type DemoData, ensureDemoData } from '../src/demo/seed.ts';
export { hashVerificationValue } from '../src/services/keyed-hash.ts';
export { hashPassword } from '../src/services/passwords.ts';
export { totpCodeAt } from '../src/services/second-factor-secrets.ts';
export { resolvePepper } from '../src/services/secrets.ts';
export { staffRoleIds } from '../src/services/staff-roles.ts';
export { generateShortId } from '../src/stores/identity-token-ids.ts';
export { type ReceivedMail, startSmtpServer } from './helpers/smtp.ts';
