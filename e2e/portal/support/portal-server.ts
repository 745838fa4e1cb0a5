import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SignInType, StaffKind } from '@entry/domain';
import { roleIdByScope } from '@entry/domain';
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
  sessions,
  staffUsers,
  startSmtpServer,
  tenants,
} from '@entry/server/testing';
import { eq } from 'drizzle-orm';
import { Authenticator } from './authenticator.ts';

const repositoryRoot = path.resolve(import.meta.dirname, '../../..');

/** Real time plus an offset the test moves: lock, code and token lifetimes pass without sleeping. */
class MovableClock implements Clock {
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
  /** The account's authenticator app, when it has one set up. */
  authenticator?: Authenticator;
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
  const domain = 'localhost';
  const smtp = await startSmtpServer();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'entry-portal-e2e-'));
  const clock = new MovableClock();
  const config = loadConfig(
    {
      PORT: String(port),
      PUBLIC_PORT: String(port),
      PUBLIC_DOMAIN: domain,
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
  const apps = `http://apps.${domain}:${port}`;

  /** A call to the server as a page on the apps host would make it, answered without the network. */
  async function call(method: 'POST', url: string, options: { token?: string; body?: unknown } = {}) {
    const response = await app.inject({
      method,
      url,
      headers: {
        host: new URL(apps).host,
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
    });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.statusCode === 204 ? undefined : (response.json() as Record<string, unknown>);
  }

  /** Sets up an authenticator app through the API, as the security page does after a first sign-in. */
  async function setUpAuthenticator(kind: StaffKind, account: StaffAccount): Promise<Authenticator> {
    const base = `/api/auth/v1/${kind}`;
    const signedIn = await call('POST', `${base}/sign-in`, {
      body: { username: account.username, password: account.password },
    });
    const token = String(signedIn?.accessToken);
    const enrolment = await call('POST', `${base}/second-factors/totp`, { token });
    const authenticator = new Authenticator(String(enrolment?.secret));
    const confirmed = await call('POST', `${base}/second-factors/totp/confirm`, {
      token,
      body: { code: authenticator.nextCode(clock) },
    });
    const auth = confirmed?.auth as { accessToken: string };
    await call('POST', `${base}/sign-out`, { token: auth.accessToken });
    return authenticator;
  }

  return {
    demo: demo satisfies DemoData,
    clock,
    apps,
    tenant: (subdomain: string = demo.tenant.subdomain) => `http://${subdomain}.${domain}:${port}`,
    /** The `index`th mail (0 = the first) to `to` whose subject matches, once it has arrived. */
    waitForMail(to: string, subject: RegExp, index = 0): Promise<ReceivedMail> {
      const matches = (mail: ReceivedMail) => mail.to.includes(to) && subject.test(mail.subject);
      return smtp.waitForMail((mail) => matches(mail) && smtp.mails.filter(matches).indexOf(mail) === index);
    },

    /**
     * An admin or customer account of the demo tenant, made for one test. An admin has an
     * authenticator app set up, as every admin must, unless `secondFactor` is false.
     */
    async createStaffUser(
      kind: StaffKind,
      options: { passwordAgeDays?: number; secondFactor?: boolean } = {},
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
        roleId: roleIdByScope[kind],
        passwordHash: await hashPassword(account.password),
        passwordChangedAt: new Date(clock.now().getTime() - (options.passwordAgeDays ?? 0) * 86_400_000),
      });
      if (!(options.secondFactor ?? kind === 'admin')) return account;
      return { ...account, authenticator: await setUpAuthenticator(kind, account) };
    },

    /** `count` audit rows of `event` for the demo tenant, one after another, for the audit page to page through. */
    async recordAuditRows(event: string, count: number): Promise<void> {
      for (let index = 0; index < count; index += 1) {
        await app.ctx.audit.record({
          event,
          outcome: 'success',
          actor: `consumer:${index}`,
          tenantId: demo.tenant.customerId,
          ip: '198.51.100.7',
          detail: { index },
        });
      }
    },

    /** Changes a staff user's row as a test needs it: a manager, a lock after failed sign-ins. */
    async updateStaffUser(
      username: string,
      change: { manager?: boolean; lockedUntil?: Date | null; tenantId?: number },
    ): Promise<void> {
      await db.update(staffUsers).set(change).where(eq(staffUsers.username, username));
    },

    /** Another organization than the demo tenant, with its customer id. */
    async createOrganization(subdomain: string, name: string): Promise<number> {
      const [row] = await db
        .insert(tenants)
        .values({
          id: 5000 + sequence++,
          subdomain,
          name,
          settings: { mfaRequired: true, maxPasswordAgeDays: null },
        })
        .returning({ id: tenants.id });
      if (row === undefined) throw new Error('the tenant insert returned no row');
      return row.id;
    },

    /** Why the server ended session `sessionId`: its revocation's cause, or null while it has not ended. */
    async sessionEnding(sessionId: string): Promise<string | null> {
      const [session] = await db.select().from(sessions).where(eq(sessions.id, sessionId));
      return session?.revokedReason ?? null;
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
