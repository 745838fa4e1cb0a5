import type { AuthTokenResult, LaunchResult } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, sessions } from '../src/db/schema.ts';
import { call, databaseLabel, signInAdmin, startTestServer, type TestServer } from './helpers/server.ts';

describe(`admin launch of a customer portal (${databaseLabel})`, () => {
  let server: TestServer;
  let adminToken: string;
  beforeAll(async () => {
    server = await startTestServer();
    adminToken = (await signInAdmin(server)).accessToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  const launch = (kind: string, customerId: string | number, token: string | null = adminToken) =>
    call<LaunchResult>(server.baseUrl, 'POST', `/api/auth/v1/launch/${kind}/${customerId}`, {
      ...(token === null ? {} : { token }),
    });
  const exchange = (token: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in/token', { body: { token } });

  it.each(['customer', 'dashbilling'])(
    'launches %s: a single-use token that opens a Launched customer session recording the admin',
    async (kind) => {
      const launched = await launch(kind, 1001);
      expect(launched.status).toBe(200);
      const session = await exchange(launched.body.token);
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ accessType: 'Launched', hasRestrictedAccess: false });
      const payload = decodeJwt(session.body.accessToken) as {
        scope: string;
        user: { context: { roleId: number } };
      };
      expect(payload.scope).toBe('customer');
      expect(payload.user.context.roleId).toEqual(expect.any(Number));
      const [row] = await server.ctx.db
        .select()
        .from(sessions)
        .where(eq(sessions.id, session.body.sessionGuid));
      const adminSub = decodeJwt(adminToken).sub;
      expect(`admin:${row?.launchedByAdminId}`).toBe(adminSub);
      expect(row?.tenantId).toBe(1001);

      const again = await exchange(launched.body.token);
      expect(again.status).toBe(400);
      expect(again.body).toMatchObject({ errorCode: 'InvalidState' });
      const audited = await server.ctx.db
        .select()
        .from(auditLog)
        .where(eq(auditLog.event, `launch.${kind}`));
      expect(audited.length).toBeGreaterThan(0);
    },
  );

  it('refuses a launch token older than 60 s with 400 InvalidState', async () => {
    const launched = await launch('customer', 1001);
    server.clock.advance(61_000);
    const late = await exchange(launched.body.token);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ errorCode: 'InvalidState' });
  });

  it.each([
    ['an unknown launch token', () => exchange('no-such-launch-token'), 404, 'ItemNotFound'],
    ['an unknown customer', () => launch('customer', 424242), 404, 'ItemNotFound'],
    ['a customer id that is not a number', () => launch('customer', 'abc'), 400, 'InvalidValue'],
    ['no admin token', () => launch('customer', 1001, null), 401, 'NotAuthorized'],
    [
      'an empty body at sign-in/token',
      () => call(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in/token'),
      400,
      'InvalidValue',
    ],
  ])('answers %s with %i %s', async (_label, run, status, errorCode) => {
    const response = await run();
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ errorCode });
  });

  it('refuses a customer token at the launch calls with 403 NotPermitted', async () => {
    const { username, password } = server.demo.customer;
    const customer = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username, password },
    });
    expect(customer.status).toBe(200);
    const response = await launch('customer', 1001, customer.body.accessToken);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ errorCode: 'NotPermitted' });
  });
});
