import { randomUUID } from 'node:crypto';
import type { IdentityTokenData, Language, SignInType, VerificationField } from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { auditLog, consumers, identityTokens, type TenantSettings, tenants } from '../src/db/schema.ts';
import { hashVerificationValue } from '../src/services/keyed-hash.ts';
import { generateShortId } from '../src/stores/identity-token-ids.ts';
import type { TestServer } from './helpers/server.ts';

/** Consumers and identity tokens made for one test, so no test depends on another's counters. */

export const paymentData: IdentityTokenData = {
  paymentAmount: 310.5,
  schedulePaymentAmount: 50,
  scheduleDownPayment: 10,
  scheduleInterval: 'Weekly',
};

export type Answers = Record<VerificationField, string>;

let sequence = 0;

/** Distinct verification values per call, so a token-less lookup matches exactly one consumer. */
function uniqueAnswers(): Answers {
  sequence += 1;
  const n = (Date.now() + sequence * 7919) % 10_000;
  return {
    last4Ssn: String(n).padStart(4, '0'),
    postalCode: String(10_000 + ((n * 37 + sequence) % 89_999)).padStart(5, '0'),
    dateOfBirth: `19${String(50 + (sequence % 49)).padStart(2, '0')}-0${1 + (sequence % 9)}-1${sequence % 10}`,
  };
}

export interface ConsumerFixture {
  id: number;
  consumerId: string;
  tenantId: number;
  email: string | null;
  answers: Answers;
}

export async function createConsumer(
  server: TestServer,
  options: { tenantId?: number; answers?: Answers; email?: string | null; language?: Language | null } = {},
): Promise<ConsumerFixture> {
  const tenantId = options.tenantId ?? server.demo.tenant.customerId;
  const answers = options.answers ?? uniqueAnswers();
  const email = options.email === undefined ? `consumer-${randomUUID()}@example.com` : options.email;
  const pepper = server.ctx.pepper;
  const consumerId = `test-${randomUUID()}`;
  const [row] = await server.ctx.db
    .insert(consumers)
    .values({
      tenantId,
      consumerId,
      name: 'Test Consumer',
      email,
      last4SsnHash: hashVerificationValue(pepper, 'last4Ssn', answers.last4Ssn),
      postalCodeHash: hashVerificationValue(pepper, 'postalCode', answers.postalCode),
      dateOfBirthHash: hashVerificationValue(pepper, 'dateOfBirth', answers.dateOfBirth),
      language: options.language ?? null,
      createdAt: server.clock.now(),
    })
    .returning({ id: consumers.id });
  if (row === undefined) throw new Error('consumer insert returned no row');
  return { id: row.id, consumerId, tenantId, email, answers };
}

export interface TokenFixture {
  guid: string;
  shortId: string | null;
}

export async function createToken(
  server: TestServer,
  consumer: ConsumerFixture,
  signInType: SignInType,
  options: { validForMs?: number } = {},
): Promise<TokenFixture> {
  const now = server.clock.now();
  const guid = randomUUID();
  const shortId = signInType === 'Direct' ? null : generateShortId();
  await server.ctx.db.insert(identityTokens).values({
    guid,
    shortId,
    consumerId: consumer.id,
    tenantId: consumer.tenantId,
    source: 'Letter',
    signInType,
    data: paymentData,
    createdAt: now,
    expiresAt: new Date(now.getTime() + (options.validForMs ?? 30 * 24 * 60 * 60_000)),
  });
  return { guid, shortId };
}

/** A second tenant, e.g. one that does not require MFA. */
export async function createTenant(
  server: TestServer,
  settings: Partial<TenantSettings> = {},
): Promise<{ id: number; subdomain: string }> {
  sequence += 1;
  const id = 5000 + sequence + Math.floor(Math.random() * 1000) * 100;
  const subdomain = `tenant-${id}`;
  await server.ctx.db.insert(tenants).values({
    id,
    subdomain,
    name: `Tenant ${id}`,
    settings: { mfaRequired: true, maxPasswordAgeDays: null, ...settings },
  });
  return { id, subdomain };
}

export async function auditEvents(server: TestServer, event: string) {
  return server.ctx.db.select().from(auditLog).where(eq(auditLog.event, event));
}

export async function tokenRow(server: TestServer, guid: string) {
  const [row] = await server.ctx.db
    .select()
    .from(identityTokens)
    .where(and(eq(identityTokens.guid, guid)));
  if (row === undefined) throw new Error(`no token ${guid}`);
  return row;
}

export async function consumerRow(server: TestServer, id: number) {
  const [row] = await server.ctx.db.select().from(consumers).where(eq(consumers.id, id));
  if (row === undefined) throw new Error(`no consumer ${id}`);
  return row;
}
