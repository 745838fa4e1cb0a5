import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthTokenResult, LaunchResult } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityTokens, sessions } from '../src/db/schema.ts';
import { type CliRun, cli } from './cli-helpers.ts';
import { auditEvents, createConsumer, createToken } from './consumer-fixtures.ts';
import {
  call,
  databaseLabel,
  passSecondFactor,
  signInAdmin,
  startTestServer,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';

const serverRoot = path.resolve(import.meta.dirname, '..');
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * An operator command beside the running server: on PostgreSQL a process of its own, as an
 * operator runs it (its own clock, no shared memory); on PGlite in the server's process.
 */
async function operator(server: TestServer, ...argv: string[]): Promise<CliRun> {
  if (testDatabaseUrl === undefined) return cli(server, ...argv);
  const { database } = server;
  const child = spawn(
    process.execPath,
    ['--import', tsxLoader, path.join(serverRoot, 'src/main.ts'), ...argv],
    {
      cwd: serverRoot,
      env: {
        ...process.env,
        DATA_DIR: database.dataDir,
        KBA_PEPPER: database.pepper,
        DATABASE_URL: database.databaseUrl,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code: code ?? 1, stdout, stderr };
}

const sessionMaxMinutes = 60;

describe(`session endings (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        SESSION_MAX_MINUTES: String(sessionMaxMinutes),
        // Sessions renewed by refreshes alone, ended by their other grounds, not their idleness.
        STAFF_IDLE_MINUTES: String(sessionMaxMinutes),
        REFRESH_TOKEN_MINUTES: '30',
        RATE_LIMIT_FAILURES: '1000',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const refresh = (scope: string, refreshToken: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', `/api/auth/v1/${scope}/refresh`, {
      body: { refreshToken },
    });
  const signOut = (scope: string, accessToken: string) =>
    call(server.baseUrl, 'POST', `/api/auth/v1/${scope}/sign-out`, { token: accessToken });
  const launch = (adminToken: string) =>
    call<LaunchResult>(
      server.baseUrl,
      'POST',
      `/api/auth/v1/launch/customer/${server.demo.tenant.customerId}`,
      {
        token: adminToken,
      },
    );
  const exchange = (token: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in/token', { body: { token } });

  async function launched(admin: AuthTokenResult): Promise<AuthTokenResult> {
    const made = await launch(admin.accessToken);
    expect(made.status).toBe(200);
    const session = await exchange(made.body.token);
    expect(session.status).toBe(200);
    return session.body;
  }

  async function revokedReason(sessionId: string): Promise<string | null> {
    const [row] = await server.ctx.db.select().from(sessions).where(eq(sessions.id, sessionId));
    return row?.revokedReason ?? null;
  }

  /** The audit rows recording the end of `sessionId`. */
  async function endings(scope: string, sessionId: string) {
    const rows = await auditEvents(server, `${scope}.session.end`);
    return rows.filter((row) => row.detail.sessionId === sessionId);
  }

  describe('absolute age', () => {
    it('renews a session only until SESSION_MAX_MINUTES, then refuses its refresh and its access token', async () => {
      let pair = await signInAdmin(server);
      const { sessionGuid } = pair;
      for (let step = 0; step < 3; step += 1) {
        server.clock.advanceMinutes(19);
        const renewed = await refresh('admin', pair.refreshToken);
        expect(renewed.status).toBe(200);
        pair = renewed.body;
      }
      // Minute 57: the access token just issued is valid for 15 more minutes, the session for 3;
      // a launch needs a second factor of the last 15 minutes, so the admin steps up first.
      pair = await passSecondFactor(server, 'admin', pair.accessToken, server.demo.admin.totpSecret);
      expect((await launch(pair.accessToken)).status).toBe(200);
      server.clock.advanceMinutes(3);
      const late = await launch(pair.accessToken);
      expect(late.status).toBe(401);
      expect(late.body).toMatchObject({ errorCode: 'NotAuthorized' });
      expect((await refresh('admin', pair.refreshToken)).status).toBe(401);
      expect(await revokedReason(sessionGuid)).toBe('session-max-age');
      expect(await endings('admin', sessionGuid)).toMatchObject([
        { outcome: 'revoked', detail: { cause: 'session-max-age' } },
      ]);
    });

    it('ends a session pending its second factor 10 minutes after it starts, and never renews it', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Last4Ssn');
      const tenant = { customerId: server.demo.tenant.customerId, subdomain: server.demo.tenant.subdomain };
      const lookup = await call<{ authToken: AuthTokenResult }>(
        server.baseUrl,
        'POST',
        '/api/auth/v1/consumer/sign-in/lookup',
        { body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn } },
      );
      expect(lookup.status).toBe(200);
      const pending = lookup.body.authToken;
      expect(pending).toMatchObject({ hasRestrictedAccess: true, accessType: 'MfaPending' });
      expect((await refresh('consumer', pending.refreshToken)).status).toBe(401);

      const mfa = () =>
        call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/mfa?mfaCode=000000', {
          token: pending.accessToken,
        });
      expect((await mfa()).status).toBe(409);
      server.clock.advanceMinutes(10);
      const late = await mfa();
      expect(late.status).toBe(401);
      expect(late.body).toMatchObject({ errorCode: 'NotAuthorized' });
      expect(await endings('consumer', pending.sessionGuid)).toMatchObject([
        { outcome: 'revoked', detail: { cause: 'mfa-pending-expired' } },
      ]);
    });
  });

  describe('launched sessions end with the admin session that launched them', () => {
    it('on sign-out: the launched session stops refreshing and an unused launch token dies', async () => {
      const admin = await signInAdmin(server);
      const child = await launched(admin);
      const unused = await launch(admin.accessToken);
      expect(unused.status).toBe(200);

      expect((await signOut('admin', admin.accessToken)).status).toBe(204);
      // Recorded with the admin's sign-out, before the launched session is used again.
      expect(await endings('customer', child.sessionGuid)).toMatchObject([
        {
          outcome: 'revoked',
          detail: { cause: 'launching-session-ended', launchedBySessionId: admin.sessionGuid },
        },
      ]);
      const refused = await refresh('customer', child.refreshToken);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ errorCode: 'NotAuthorized' });
      const late = await exchange(unused.body.token);
      expect(late.status).toBe(400);
      expect(late.body).toMatchObject({ errorCode: 'InvalidState' });
      const refusals = await auditEvents(server, 'customer.sign-in.launch');
      expect(refusals.at(-1)).toMatchObject({
        outcome: 'failure',
        detail: { reason: 'launching-session-ended' },
      });
    });

    it('when the admin session reaches its absolute age, though the launched one is younger', async () => {
      let admin = await signInAdmin(server);
      for (let step = 0; step < 2; step += 1) {
        server.clock.advanceMinutes(25);
        const renewed = await refresh('admin', admin.refreshToken);
        expect(renewed.status).toBe(200);
        admin = renewed.body;
      }
      admin = await passSecondFactor(server, 'admin', admin.accessToken, server.demo.admin.totpSecret);
      const child = await launched(admin);
      server.clock.advanceMinutes(11);
      const refused = await refresh('customer', child.refreshToken);
      expect(refused.status).toBe(401);
      expect(await revokedReason(child.sessionGuid)).toBe('launching-session-ended');
      expect(await endings('customer', child.sessionGuid)).toHaveLength(1);
      // Refused again, the ending is not recorded twice.
      expect((await refresh('customer', child.refreshToken)).status).toBe(401);
      expect(await endings('customer', child.sessionGuid)).toHaveLength(1);
    });

    it('when a reused refresh token revokes the admin session', async () => {
      const admin = await signInAdmin(server);
      const child = await launched(admin);
      expect((await refresh('admin', admin.refreshToken)).status).toBe(200);
      server.clock.advance(11_000);
      expect((await refresh('admin', admin.refreshToken)).status).toBe(401);
      expect(await revokedReason(admin.sessionGuid)).toBe('refresh-token-reuse');
      expect((await refresh('customer', child.refreshToken)).status).toBe(401);
      expect(await endings('customer', child.sessionGuid)).toMatchObject([
        { detail: { cause: 'launching-session-ended' } },
      ]);
    });

    it('when the CLI disables the admin: its sessions, the ones it launched and its launch tokens end', async () => {
      const admin = await signInAdmin(server);
      const child = await launched(admin);
      const unused = await launch(admin.accessToken);
      expect(unused.status).toBe(200);

      const run = await operator(server, 'user', 'disable', '--kind', 'admin', '--username', 'admin');
      expect(run).toMatchObject({ code: 0, stderr: '' });
      try {
        expect((await launch(admin.accessToken)).status).toBe(401);
        expect((await refresh('admin', admin.refreshToken)).status).toBe(401);
        expect((await refresh('customer', child.refreshToken)).status).toBe(401);
        expect((await exchange(unused.body.token)).status).toBe(400);
        expect((await auditEvents(server, 'customer.sign-in.launch')).at(-1)).toMatchObject({
          outcome: 'failure',
          detail: { reason: 'admin-disabled' },
        });
        expect(await endings('admin', admin.sessionGuid)).toMatchObject([
          { detail: { cause: 'user-disabled' } },
        ]);
        expect(await endings('customer', child.sessionGuid)).toMatchObject([
          { detail: { cause: 'launching-session-ended', launchedBySessionId: admin.sessionGuid } },
        ]);
      } finally {
        expect(
          (await operator(server, 'user', 'enable', '--kind', 'admin', '--username', 'admin')).code,
        ).toBe(0);
      }
    }, 60_000);
  });

  describe("a link's sessions end with it", () => {
    const tenant = () => ({
      customerId: server.demo.tenant.customerId,
      subdomain: server.demo.tenant.subdomain,
    });
    const signInWith = async (guid: string) => {
      const response = await call<AuthTokenResult>(
        server.baseUrl,
        'POST',
        '/api/auth/v1/consumer/sign-in/identity-token',
        { body: { token: guid, ...tenant() } },
      );
      expect(response.status).toBe(200);
      return response.body;
    };

    it('when the CLI revokes its mailing', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Direct');
      const mailing = `endings-${Date.now().toString(36)}`;
      await server.ctx.db
        .update(identityTokens)
        .set({ mailingId: mailing })
        .where(eq(identityTokens.guid, token.guid));
      const session = await signInWith(token.guid);
      expect((await refresh('consumer', session.refreshToken)).status).toBe(200);

      const run = await operator(server, 'links', 'revoke', '--mailing', mailing);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(await endings('consumer', session.sessionGuid)).toMatchObject([
        { outcome: 'revoked', detail: { cause: 'link-revoked' } },
      ]);
      expect((await refresh('consumer', session.refreshToken)).status).toBe(401);
    }, 60_000);

    it('when it expires', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Direct', { validForMs: 20 * 60_000 });
      const session = await signInWith(token.guid);
      const read = () =>
        call<{ data?: unknown }>(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token.guid}`, {
          token: session.accessToken,
        });
      server.clock.advanceMinutes(10);
      const renewed = await refresh('consumer', session.refreshToken);
      expect(renewed.status).toBe(200);
      expect((await read()).body.data).not.toBeNull();
      server.clock.advanceMinutes(11);
      expect((await read()).body.data).toBeNull();
      expect((await refresh('consumer', renewed.body.refreshToken)).status).toBe(401);
      expect(await endings('consumer', session.sessionGuid)).toMatchObject([
        { outcome: 'revoked', detail: { cause: 'link-expired' } },
      ]);
    });
  });

  // Last: it changes the demo admin's password.
  it("ends the launched sessions when the admin's password changes", async () => {
    const admin = await signInAdmin(server);
    const child = await launched(admin);
    // The change comes from another session that passed the second factor: the launching one ends.
    const changing = await signInAdmin(server);
    const changed = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
      token: changing.accessToken,
      body: {
        username: server.demo.admin.username,
        currentPassword: server.demo.admin.password,
        newPassword: 'a quite different admin passphrase 42',
      },
    });
    expect(changed.status).toBe(204);
    expect((await refresh('customer', child.refreshToken)).status).toBe(401);
    expect(await endings('customer', child.sessionGuid)).toMatchObject([
      { detail: { cause: 'launching-session-ended', launchedBySessionId: admin.sessionGuid } },
    ]);
  });
});
