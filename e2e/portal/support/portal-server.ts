import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SignInType } from '@entry/domain';
import {
  buildApp,
  type Clock,
  consumers,
  type DemoData,
  ensureDemoData,
  generateShortId,
  hashPassword,
  hashVerificationValue,
  identityTokens,
  loadConfig,
  openDatabase,
  type ReceivedMail,
  resolvePepper,
  type StaffKind,
  staffRoleIds,
  staffUsers,
  startSmtpServer,
  tenants,
} from '@entry/server/testing';
import { eq } from 'drizzle-orm';

const repositoryRoot = path.resolve(import.meta.dirname, '../../..');

/** Real time plus an offset the test moves: lock, code and token lifetimes pass without sleeping. */
export class MovableClock implements Clock {
  #offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.#offsetMs);
  }

  advanceMinutes(minutes: number): void {
    this.#offsetMs += minutes * 60_000;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

export interface StaffAccount {
  username: string;
  password: string;
  email: string;
  displayName: string;
}

export interface LinkFixture {
  guid: string;
  shortId: string | null;
  consumerName: string;
  email: string;
  answers: { last4Ssn: string; postalCode: string; dateOfBirth: string };
}

let sequence = 0;

/** The staff pages' idle time on this server. */
export const staffIdleMinutes = 90;

/**
 * The real server (apps/server) in the test worker, on its own port and database, sending mail to a
 * real local SMTP server the tests read. Unlike the suite's shared server it lets a test create its
 * own accounts and links (a lockout never touches another test's data) and move the server's clock.
 */
export async function startPortalServer() {
  const smtp = await startSmtpServer();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'entry-portal-e2e-'));
  const clock = new MovableClock();
  const config = loadConfig(
    {
      PORT: String(port),
      PUBLIC_PORT: String(port),
      PUBLIC_DOMAIN: 'localhost',
      DATA_DIR: dataDir,
      WEB_DIST_DIR: path.join(repositoryRoot, 'apps/web/dist'),
      SMTP_URL: smtp.url,
      MAIL_FROM: 'portal-e2e@example.com',
      RATE_LIMIT_FAILURES: '100000',
      // Longer than a refresh token lives, so a spec that lets the token expire sees that ending.
      STAFF_IDLE_MINUTES: String(staffIdleMinutes),
      LOG_LEVEL: 'silent',
    },
    clock,
  );
  const database = await openDatabase(config);
  const { demo } = await ensureDemoData(database.db, { config, pepper: resolvePepper(config) });
  const app = await buildApp(config, { database, logger: false });
  await app.listen({ port, host: '127.0.0.1' });
  const db = app.ctx.db;

  return {
    demo: demo satisfies DemoData,
    clock,
    apps: `http://apps.localhost:${port}`,
    tenant: (subdomain: string = demo.tenant.subdomain) => `http://${subdomain}.localhost:${port}`,
    /** The `index`th mail (0 = the first) to `to` whose subject matches, once it has arrived. */
    waitForMail(to: string, subject: RegExp, index = 0): Promise<ReceivedMail> {
      const matches = (mail: ReceivedMail) => mail.to.includes(to) && subject.test(mail.subject);
      return smtp.waitForMail((mail) => matches(mail) && smtp.mails.filter(matches).indexOf(mail) === index);
    },

    /** An admin or customer account of the demo tenant, made for one test. */
    async createStaffUser(
      kind: StaffKind,
      options: { passwordAgeDays?: number } = {},
    ): Promise<StaffAccount> {
      sequence += 1;
      const username = `${kind}-${sequence}-${randomUUID().slice(0, 8)}`;
      const account = {
        username,
        password: `portal test ${randomUUID()}`,
        email: `${username}@example.com`,
        displayName: `${kind === 'admin' ? 'Avery' : 'Charlie'} Tester ${sequence}`,
      };
      await db.insert(staffUsers).values({
        kind,
        tenantId: kind === 'admin' ? null : demo.tenant.customerId,
        username,
        email: account.email,
        displayName: account.displayName,
        roleId: staffRoleIds[kind],
        passwordHash: await hashPassword(account.password),
        passwordChangedAt: new Date(clock.now().getTime() - (options.passwordAgeDays ?? 0) * 86_400_000),
      });
      return account;
    },

    /** Sets the demo tenant's maximum password age (null: passwords never expire). */
    async setMaxPasswordAgeDays(days: number | null): Promise<void> {
      const [tenant] = await db.select().from(tenants).where(eq(tenants.id, demo.tenant.customerId));
      if (tenant === undefined) throw new Error('the demo tenant is missing');
      await db
        .update(tenants)
        .set({ settings: { ...tenant.settings, maxPasswordAgeDays: days } })
        .where(eq(tenants.id, tenant.id));
    },

    /** A consumer of the demo tenant with a link of the given sign-in type, made for one test. */
    async createLink(signInType: SignInType, options: { validForMs?: number } = {}): Promise<LinkFixture> {
      sequence += 1;
      const n = (Date.now() + sequence * 7919) % 10_000;
      const answers = {
        last4Ssn: String(n).padStart(4, '0'),
        postalCode: String(10_000 + ((n * 37 + sequence) % 89_999)).padStart(5, '0'),
        dateOfBirth: `19${String(50 + (sequence % 49)).padStart(2, '0')}-0${1 + (sequence % 9)}-1${sequence % 10}`,
      };
      const email = `consumer-${randomUUID()}@example.com`;
      const consumerName = `Morgan Consumer ${sequence}`;
      const pepper = app.ctx.pepper;
      const [row] = await db
        .insert(consumers)
        .values({
          tenantId: demo.tenant.customerId,
          consumerId: `e2e-${randomUUID()}`,
          name: consumerName,
          email,
          last4SsnHash: hashVerificationValue(pepper, 'last4Ssn', answers.last4Ssn),
          postalCodeHash: hashVerificationValue(pepper, 'postalCode', answers.postalCode),
          dateOfBirthHash: hashVerificationValue(pepper, 'dateOfBirth', answers.dateOfBirth),
        })
        .returning({ id: consumers.id });
      if (row === undefined) throw new Error('the consumer insert returned no row');
      const guid = randomUUID();
      const shortId = signInType === 'Direct' ? null : generateShortId();
      const now = clock.now();
      await db.insert(identityTokens).values({
        guid,
        shortId,
        consumerId: row.id,
        tenantId: demo.tenant.customerId,
        source: 'Letter',
        signInType,
        data: {
          paymentAmount: 310.5,
          schedulePaymentAmount: 50,
          scheduleDownPayment: 10,
          scheduleInterval: 'Weekly',
        },
        createdAt: now,
        expiresAt: new Date(now.getTime() + (options.validForMs ?? 30 * 86_400_000)),
      });
      return { guid, shortId, consumerName, email, answers };
    },

    async close(): Promise<void> {
      await app.close();
      await database.close();
      await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type PortalServer = Awaited<ReturnType<typeof startPortalServer>>;
