import { randomBytes, randomUUID } from 'node:crypto';
import type { IdentityTokenData, OrganizationContact, SignInType } from '@entry/domain';
import { roleIdByScope } from '@entry/domain';
import { and, eq, inArray } from 'drizzle-orm';
import { type Config, publicOrigin } from '../config.ts';
import type { Database } from '../db/index.ts';
import { consumers, emailSubscriptions, identityTokens, staffUsers, tenants } from '../db/schema.ts';
import { hashVerificationValue } from '../services/keyed-hash.ts';
import { hashPassword } from '../services/passwords.ts';
import { newTotpSecret, sealSecret } from '../services/second-factor-secrets.ts';
import { resolveSecondFactorKey } from '../services/secrets.ts';
import { createSubscriptionLinks } from '../services/subscriptions.ts';
import { subscriptionTokenKey } from '../services/subscriptions-token.ts';
import { generateShortId } from '../stores/identity-token-ids.ts';
import { addConfirmedTotp } from '../stores/second-factors.ts';
import { type DemoData, type DemoTokenKind, demoFilePath, readDemoFile, writeDemoFile } from './demo-file.ts';

const demoTenant = { subdomain: 'sender', customerId: 1001, customerName: 'Sender Collections' } as const;
/** Fictional details (a 555-01xx number, reserved .example names), so a trial shows where they appear. */
const demoContact: OrganizationContact = {
  phone: '(800) 555-0199',
  email: 'help@sender.example',
  hours: 'Monday to Friday, 8 AM to 6 PM Eastern',
  website: 'https://sender.example',
};
const demoAdmin = { username: 'admin', email: 'admin@example.com' } as const;
const demoCustomer = { username: 'customer', email: 'customer@example.com' } as const;
const demoVerification = { last4Ssn: '1234', postalCode: '90210', dateOfBirth: '1980-04-15' } as const;
// The linked consumers share `demoVerification`, so their three answers match several of them.
const demoWithoutLink = {
  consumerId: 'demo-without-link',
  name: 'Wren Withoutlink',
  last4Ssn: '5678',
  postalCode: '10001',
  dateOfBirth: '1975-09-23',
} as const;
const demoConsumerEmail = 'consumer@example.com';
const demoPaymentData: IdentityTokenData = {
  paymentAmount: 1250.75,
  schedulePaymentAmount: 125,
  scheduleDownPayment: 50,
  scheduleInterval: 'Monthly',
};
const validityMs = 30 * 24 * 60 * 60_000;

const demoTokens: { kind: DemoTokenKind; signInType: SignInType; name: string }[] = [
  { kind: 'direct', signInType: 'Direct', name: 'Dana Direct' },
  { kind: 'last4Ssn', signInType: 'Last4Ssn', name: 'Sam Ssn' },
  { kind: 'postalCode', signInType: 'PostalCode', name: 'Pat Postal' },
  { kind: 'dateOfBirth', signInType: 'DateOfBirth', name: 'Bea Birthday' },
  { kind: 'none', signInType: 'None', name: 'Nico None' },
  { kind: 'expired', signInType: 'Direct', name: 'Eli Expired' },
];

const externalIdOf = (kind: DemoTokenKind) => `demo-${kind.toLowerCase()}`;

export interface SeedOptions {
  config: Config;
  pepper: string;
}

async function readTokens(db: Database): Promise<Record<DemoTokenKind, string> | undefined> {
  const rows = await db
    .select({ guid: identityTokens.guid, externalId: consumers.consumerId })
    .from(identityTokens)
    .innerJoin(consumers, eq(consumers.id, identityTokens.consumerId))
    .where(
      and(
        eq(consumers.tenantId, demoTenant.customerId),
        inArray(
          consumers.consumerId,
          demoTokens.map((token) => externalIdOf(token.kind)),
        ),
      ),
    );
  const byExternalId = new Map(rows.map((row) => [row.externalId, row.guid]));
  const entries = demoTokens.map(
    (token) => [token.kind, byExternalId.get(externalIdOf(token.kind))] as const,
  );
  if (entries.some(([, guid]) => guid === undefined)) return undefined;
  return Object.fromEntries(entries) as Record<DemoTokenKind, string>;
}

/** What a trial signs in with, drawn at random when its data is seeded and kept only in demo.json. */
interface DemoSecrets {
  adminPassword: string;
  adminTotpSecret: string;
  customerPassword: string;
}

/** Sixteen random characters (96 bits): beyond guessing, and well past the password strength rules. */
const randomPassword = () => randomBytes(12).toString('base64url');

function newDemoSecrets(): DemoSecrets {
  return {
    adminPassword: randomPassword(),
    adminTotpSecret: newTotpSecret(),
    customerPassword: randomPassword(),
  };
}

function secretsIn(kept: DemoData | undefined): DemoSecrets | undefined {
  const [adminPassword, adminTotpSecret, customerPassword] = [
    kept?.admin?.password,
    kept?.admin?.totpSecret,
    kept?.customer?.password,
  ];
  if (
    typeof adminPassword !== 'string' ||
    typeof adminTotpSecret !== 'string' ||
    typeof customerPassword !== 'string'
  ) {
    return undefined;
  }
  return { adminPassword, adminTotpSecret, customerPassword };
}

/** The demo data exists in the database, but this data directory does not hold its passwords. */
export class DemoSecretsMissingError extends Error {
  constructor(file: string) {
    super(
      `The demo data in this database was seeded from another data directory: its passwords are kept only in that directory's demo.json, and ${file} does not hold them. Run the command with that DATA_DIR, or sign in with an account of your own (npm run cli -- user create).`,
    );
    this.name = 'DemoSecretsMissingError';
  }
}

function demoObject(
  { config, pepper }: SeedOptions,
  secrets: DemoSecrets,
  tokens: Record<DemoTokenKind, string>,
): DemoData {
  const subject = { customerId: demoTenant.customerId, emailAddress: demoConsumerEmail };
  return {
    baseUrl: publicOrigin(config),
    domain: config.publicDomain,
    tenant: { ...demoTenant },
    admin: {
      username: demoAdmin.username,
      password: secrets.adminPassword,
      totpSecret: secrets.adminTotpSecret,
    },
    customer: {
      username: demoCustomer.username,
      password: secrets.customerPassword,
      customerId: demoTenant.customerId,
    },
    identityTokens: tokens,
    verification: { ...demoVerification },
    withoutLink: {
      name: demoWithoutLink.name,
      last4Ssn: demoWithoutLink.last4Ssn,
      postalCode: demoWithoutLink.postalCode,
      dateOfBirth: demoWithoutLink.dateOfBirth,
    },
    consumerEmail: demoConsumerEmail,
    emailSubscription: {
      token: createSubscriptionLinks(config, subscriptionTokenKey(pepper)).tokenFor(subject),
      emailAddress: demoConsumerEmail,
    },
  };
}

/**
 * Creates the demo tenant, accounts, consumers, identity tokens and email subscription when they
 * are absent, with passwords of their own kept in DATA_DIR/demo.json, and returns the demo object
 * either way. Seeded data is never added to again, so what an operator changed or removed stays so.
 */
export async function ensureDemoData(
  db: Database,
  options: SeedOptions,
): Promise<{ created: boolean; demo: DemoData }> {
  const { config } = options;
  const [existing] = await db.select().from(tenants).where(eq(tenants.id, demoTenant.customerId));
  if (existing === undefined) return { created: true, demo: await seed(db, options) };
  const secrets = secretsIn(readDemoFile(config));
  if (secrets === undefined) throw new DemoSecretsMissingError(demoFilePath(config));
  const tokens = await readTokens(db);
  if (tokens === undefined) throw new Error('The demo tenant exists but its identity tokens are missing.');
  const demo = demoObject(options, secrets, tokens);
  writeDemoFile(config, demo);
  return { created: false, demo };
}

/** Seeds the demo and writes demo.json before the seed commits, so no seed outlives its passwords. */
async function seed(db: Database, options: SeedOptions): Promise<DemoData> {
  const { config, pepper } = options;
  const now = config.clock.now();
  const secrets = newDemoSecrets();
  const [adminHash, customerHash] = await Promise.all([
    hashPassword(secrets.adminPassword),
    hashPassword(secrets.customerPassword),
  ]);
  const sealedTotp = sealSecret(resolveSecondFactorKey(config, pepper), secrets.adminTotpSecret);
  const hashOf = (field: 'last4Ssn' | 'postalCode' | 'dateOfBirth') =>
    hashVerificationValue(pepper, field, demoVerification[field]);
  const hashOfWithoutLink = (field: 'last4Ssn' | 'postalCode' | 'dateOfBirth') =>
    hashVerificationValue(pepper, field, demoWithoutLink[field]);

  return db.transaction(async (tx) => {
    await tx.insert(tenants).values({
      id: demoTenant.customerId,
      subdomain: demoTenant.subdomain,
      name: demoTenant.customerName,
      settings: { mfaRequired: true, maxPasswordAgeDays: null },
      contact: demoContact,
      createdAt: now,
    });
    const [admin] = await tx
      .insert(staffUsers)
      .values([
        {
          kind: 'admin',
          tenantId: null,
          username: demoAdmin.username,
          email: demoAdmin.email,
          displayName: 'Ada Admin',
          roleId: roleIdByScope.admin,
          passwordHash: adminHash,
          passwordChangedAt: now,
          createdAt: now,
        },
        {
          kind: 'customer',
          tenantId: demoTenant.customerId,
          username: demoCustomer.username,
          email: demoCustomer.email,
          displayName: 'Casey Customer',
          roleId: roleIdByScope.customer,
          passwordHash: customerHash,
          passwordChangedAt: now,
          createdAt: now,
        },
      ])
      .returning({ id: staffUsers.id });
    if (admin === undefined) throw new Error('staff user insert returned no row');
    // The demo admin signs in with an authenticator app, as every admin must.
    await addConfirmedTotp(tx, admin.id, sealedTotp, now);
    const tokens: Partial<Record<DemoTokenKind, string>> = {};
    for (const token of demoTokens) {
      const [consumer] = await tx
        .insert(consumers)
        .values({
          tenantId: demoTenant.customerId,
          consumerId: externalIdOf(token.kind),
          name: token.name,
          email: demoConsumerEmail,
          last4SsnHash: hashOf('last4Ssn'),
          postalCodeHash: hashOf('postalCode'),
          dateOfBirthHash: hashOf('dateOfBirth'),
          createdAt: now,
        })
        .returning({ id: consumers.id });
      if (consumer === undefined) throw new Error('consumer insert returned no row');
      const expired = token.kind === 'expired';
      const guid = randomUUID();
      await tx.insert(identityTokens).values({
        guid,
        shortId: token.signInType === 'Direct' ? null : generateShortId(),
        consumerId: consumer.id,
        tenantId: demoTenant.customerId,
        source: 'demo',
        signInType: token.signInType,
        data: demoPaymentData,
        createdAt: expired ? new Date(now.getTime() - validityMs - 86_400_000) : now,
        expiresAt: expired ? new Date(now.getTime() - 86_400_000) : new Date(now.getTime() + validityMs),
      });
      tokens[token.kind] = guid;
    }
    await tx.insert(consumers).values({
      tenantId: demoTenant.customerId,
      consumerId: demoWithoutLink.consumerId,
      name: demoWithoutLink.name,
      email: demoConsumerEmail,
      last4SsnHash: hashOfWithoutLink('last4Ssn'),
      postalCodeHash: hashOfWithoutLink('postalCode'),
      dateOfBirthHash: hashOfWithoutLink('dateOfBirth'),
      createdAt: now,
    });
    await tx.insert(emailSubscriptions).values({
      tenantId: demoTenant.customerId,
      emailAddress: demoConsumerEmail,
      unsubscribed: false,
      changedAt: now,
    });
    const demo = demoObject(options, secrets, tokens as Record<DemoTokenKind, string>);
    writeDemoFile(config, demo);
    return demo;
  });
}
