import type { AuthTokenResult, LaunchResult } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessions } from '../src/db/schema.ts';
import { idleGraceMs } from '../src/services/session-endings.ts';
import { auditEvents } from './consumer-fixtures.ts';
import { call, databaseLabel, signInAdmin, startTestServer, type TestServer } from './helpers/server.ts';

const staffIdleMinutes = 30;
const sessionMaxMinutes = 120;
/** The first minute at which the server has ended a session unused since minute 0. */
const idleEndMinute = staffIdleMinutes + idleGraceMs / 60_000;

describe(`staff idle limit (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        STAFF_IDLE_MINUTES: String(staffIdleMinutes),
        SESSION_MAX_MINUTES: String(sessionMaxMinutes),
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
  const reportActivity = (scope: string, accessToken: string) =>
    call(server.baseUrl, 'POST', `/api/auth/v1/${scope}/activity`, { token: accessToken });
  const listFactors = (scope: string, accessToken: string) =>
    call(server.baseUrl, 'GET', `/api/auth/v1/${scope}/second-factors`, { token: accessToken });

  async function signInCustomer(): Promise<AuthTokenResult> {
    const { username, password } = server.demo.customer;
    const response = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username, password },
    });
    expect(response.status).toBe(200);
    expect(response.body.hasRestrictedAccess).toBe(false);
    return response.body;
  }

  async function launched(admin: AuthTokenResult): Promise<AuthTokenResult> {
    const made = await call<LaunchResult>(
      server.baseUrl,
      'POST',
      `/api/auth/v1/launch/customer/${server.demo.tenant.customerId}`,
      { token: admin.accessToken },
    );
    expect(made.status).toBe(200);
    const session = await call<AuthTokenResult>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/customer/sign-in/token',
      {
        body: { token: made.body.token },
      },
    );
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

  it('refuses the refresh of a session that was only refreshed, and audits its idle ending', async () => {
    let pair = await signInAdmin(server);
    server.clock.advanceMinutes(10);
    const renewed = await refresh('admin', pair.refreshToken);
    expect(renewed.status).toBe(200);
    pair = renewed.body;
    server.clock.advanceMinutes(idleEndMinute - 10);
    const late = await refresh('admin', pair.refreshToken);
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ errorCode: 'NotAuthorized' });
    expect(await revokedReason(pair.sessionGuid)).toBe('idle');
    expect(await endings('admin', pair.sessionGuid)).toMatchObject([
      { outcome: 'revoked', actor: expect.stringMatching(/^admin:/), detail: { cause: 'idle' } },
    ]);
  });

  it('refuses an authenticated call of an idle session whose access token has not expired', async () => {
    const pair = await signInCustomer();
    server.clock.advanceMinutes(staffIdleMinutes - 5);
    const renewed = await refresh('customer', pair.refreshToken);
    expect(renewed.status).toBe(200);
    // The token just issued is good for longer than the session has left.
    server.clock.advanceMinutes(idleEndMinute - (staffIdleMinutes - 5));
    const late = await listFactors('customer', renewed.body.accessToken);
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ errorCode: 'NotAuthorized' });
    expect(await revokedReason(pair.sessionGuid)).toBe('idle');
    expect(await endings('customer', pair.sessionGuid)).toMatchObject([
      { outcome: 'revoked', detail: { cause: 'idle' } },
    ]);
    expect((await refresh('customer', renewed.body.refreshToken)).status).toBe(401);
  });

  it('keeps a session used every few minutes until SESSION_MAX_MINUTES, then ends it for its age', async () => {
    let pair = await signInAdmin(server);
    const { sessionGuid } = pair;
    let minute = 0;
    while (minute + 5 < sessionMaxMinutes) {
      server.clock.advanceMinutes(5);
      minute += 5;
      // The web app's own refresh, on its timer, and the person's calls in between.
      if (minute % 10 === 0) {
        const renewed = await refresh('admin', pair.refreshToken);
        expect(renewed.status, `refresh at minute ${minute}`).toBe(200);
        pair = renewed.body;
      } else {
        expect((await reportActivity('admin', pair.accessToken)).status, `minute ${minute}`).toBe(204);
      }
    }
    server.clock.advanceMinutes(sessionMaxMinutes - minute);
    expect((await reportActivity('admin', pair.accessToken)).status).toBe(401);
    expect(await revokedReason(sessionGuid)).toBe('session-max-age');
  });

  it('lets a session live its whole idle limit after its last use', async () => {
    const pair = await signInCustomer();
    server.clock.advanceMinutes(10);
    expect((await reportActivity('customer', pair.accessToken)).status).toBe(204);
    server.clock.advanceMinutes(staffIdleMinutes - 1);
    const renewed = await refresh('customer', pair.refreshToken);
    expect(renewed.status).toBe(200);
    expect((await listFactors('customer', renewed.body.accessToken)).status).toBe(200);
  });

  it('ends an idle launched session, and keeps alive the admin session of one in use', async () => {
    const admin = await signInAdmin(server);
    let customer = await launched(admin);
    // The admin works in the launched portal only: its own session sends nothing past its idle limit.
    for (let minute = 5; minute <= idleEndMinute + 5; minute += 5) {
      server.clock.advanceMinutes(5);
      if (minute % 10 === 0) {
        const renewed = await refresh('customer', customer.refreshToken);
        expect(renewed.status, `launched refresh at minute ${minute}`).toBe(200);
        customer = renewed.body;
      } else {
        expect((await reportActivity('customer', customer.accessToken)).status).toBe(204);
      }
    }
    const adminRenewed = await refresh('admin', admin.refreshToken);
    expect(adminRenewed.status).toBe(200);

    server.clock.advanceMinutes(idleEndMinute);
    expect((await refresh('customer', customer.refreshToken)).status).toBe(401);
    expect(await revokedReason(customer.sessionGuid)).toBe('idle');
    expect(await endings('customer', customer.sessionGuid)).toMatchObject([
      { outcome: 'revoked', detail: { cause: 'idle' } },
    ]);
    expect((await refresh('admin', adminRenewed.body.refreshToken)).status).toBe(401);
    expect(await revokedReason(admin.sessionGuid)).toBe('idle');
  });

  it('leaves consumer sessions without an idle limit', async () => {
    const opened = await call<AuthTokenResult>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      {
        body: {
          token: server.demo.identityTokens.direct,
          customerId: server.demo.tenant.customerId,
          subdomain: server.demo.tenant.subdomain,
        },
      },
    );
    expect(opened.status).toBe(200);
    let pair = opened.body;
    for (let step = 0; step < 3; step += 1) {
      server.clock.advanceMinutes(14);
      const renewed = await refresh('consumer', pair.refreshToken);
      expect(renewed.status).toBe(200);
      pair = renewed.body;
    }
  });
});
