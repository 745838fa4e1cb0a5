import { type AuthTokenResult, authTokenResultSchema, errorBodySchema } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffUsers, tenants } from '../src/db/schema.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const strongPassword = 'plum tractor glacier umbrella 58';

describe(`admin and customer password sign-in (${databaseLabel})`, () => {
  let server: TestServer;
  const accounts = () => ({ admin: server.demo.admin, customer: server.demo.customer });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  describe.each(['admin', 'customer'] as const)('%s', (kind) => {
    it("signs in with the right password: a full token with the user's name and role, and the refresh cookie", async () => {
      const { username, password } = accounts()[kind];
      const response = await call<AuthTokenResult>(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in`, {
        body: { username, password },
      });
      expect(response.status).toBe(200);
      const result = authTokenResultSchema.parse(response.body);
      expect(result).toMatchObject({
        accessTokenExpiresIn: 15,
        refreshTokenExpiresIn: 60,
        accessType: kind === 'admin' ? 'Admin' : 'Customer',
        hasRestrictedAccess: false,
      });
      const payload = decodeJwt(result.accessToken) as {
        user: { name?: string; context: { roleId: unknown } };
        sid: string;
      };
      const [user] = await server.ctx.db
        .select({ displayName: staffUsers.displayName, roleId: staffUsers.roleId })
        .from(staffUsers)
        .where(eq(staffUsers.username, username));
      expect(payload.user).toEqual({ name: user?.displayName, context: { roleId: user?.roleId } });
      expect(user?.displayName).toEqual(expect.any(String));
      expect(payload.sid).toBe(result.sessionGuid);
      const cookie = response.headers.getSetCookie().find((line) => line.startsWith('entry-refresh='));
      expect(cookie).toContain(`Path=/api/auth/v1/${kind}`);
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Strict');
      expect(cookie).not.toContain('Secure');
    });

    it.each([
      [
        'a wrong password',
        (username: string) => ({ username, password: 'not the password at all' }),
        401,
        'InvalidSignIn',
      ],
      [
        'an unknown username',
        () => ({ username: 'nobody-here', password: 'whatever it is 123' }),
        401,
        'InvalidSignIn',
      ],
      ['a missing password', (username: string) => ({ username }), 400, 'InvalidValue'],
      [
        'an unknown field',
        (username: string) => ({ username, password: 'x', extra: 1 }),
        400,
        'InvalidValue',
      ],
      [
        'a password of the wrong type',
        (username: string) => ({ username, password: 42 }),
        400,
        'InvalidValue',
      ],
    ])('refuses %s', async (_label, bodyFor, status, errorCode) => {
      const response = await call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in`, {
        body: bodyFor(`${kind}-other`),
      });
      expect(response.status).toBe(status);
      expect(errorBodySchema.parse(response.body).errorCode).toBe(errorCode);
    });

    it('names the invalid field', async () => {
      const response = await call(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in`, {
        body: { username: 'someone' },
      });
      expect(response.body).toMatchObject({ errors: [{ field: 'password' }] });
    });
  });

  it.each([
    ['no body', undefined],
    ['an empty username', { username: '' }],
    ['an unknown field', { username: 'admin', email: 'a@b.c' }],
  ])('answers a password reset with %s with 400 InvalidValue', async (_label, body) => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
      ...(body === undefined ? {} : { body }),
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errorCode: 'InvalidValue' });
  });

  it('locks an account after 10 consecutive failures for 15 minutes, then lets the right password in', async () => {
    const { username, password } = server.demo.customer;
    const attempt = (pw: string) =>
      call(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', { body: { username, password: pw } });
    const codes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      codes.push(String((await attempt('wrong password guess')).body.errorCode));
    }
    expect(codes.slice(0, 9)).toEqual(Array(9).fill('InvalidSignIn'));
    expect(codes[9]).toBe('UserLocked');

    const whileLocked = await attempt(password);
    expect(whileLocked.status).toBe(401);
    expect(whileLocked.body.errorCode).toBe('UserLocked');

    server.clock.advanceMinutes(16);
    expect((await attempt(password)).status).toBe(200);
  });

  it('doubles the next lock', async () => {
    const { username, password } = server.demo.admin;
    const attempt = (pw: string) =>
      call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', { body: { username, password: pw } });
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < 10; i += 1) await attempt('wrong password guess');
      if (round === 0) server.clock.advanceMinutes(16);
    }
    server.clock.advanceMinutes(16);
    expect((await attempt(password)).body.errorCode).toBe('UserLocked');
    server.clock.advanceMinutes(15);
    expect((await attempt(password)).status).toBe(200);
  });

  it('ends a run of failures with the right password, so only consecutive failures lock', async () => {
    const { username, password } = server.demo.admin;
    const attempt = (pw: string) =>
      call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', { body: { username, password: pw } });
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < 9; i += 1) expect((await attempt('wrong password guess')).status).toBe(401);
      expect((await attempt(password)).status).toBe(200);
    }
    // A success with no run to end changes nothing either.
    expect((await attempt(password)).status).toBe(200);
    for (let i = 0; i < 9; i += 1) await attempt('wrong password guess');
    expect((await attempt('wrong password guess')).body.errorCode).toBe('UserLocked');
    server.clock.advanceMinutes(24 * 60);
    expect((await attempt(password)).status).toBe(200);
  });

  it('refuses a password older than the tenant allows with PasswordExpired, until it is changed', async () => {
    const { username, password } = server.demo.customer;
    await server.ctx.db
      .update(tenants)
      .set({ settings: { mfaRequired: true, maxPasswordAgeDays: 90 } })
      .where(eq(tenants.id, 1001));
    try {
      server.clock.advanceMinutes(91 * 24 * 60);
      const expired = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
        body: { username, password },
      });
      expect(expired.status).toBe(401);
      expect(expired.body.errorCode).toBe('PasswordExpired');

      const changed = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/password/change', {
        body: { username, currentPassword: password, newPassword: strongPassword },
      });
      expect(changed.status).toBe(204);
      const signedIn = await call(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
        body: { username, password: strongPassword },
      });
      expect(signedIn.status).toBe(200);
    } finally {
      await server.ctx.db
        .update(tenants)
        .set({ settings: { mfaRequired: true, maxPasswordAgeDays: null } })
        .where(eq(tenants.id, 1001));
      await call(server.baseUrl, 'POST', '/api/auth/v1/customer/password/change', {
        body: { username, currentPassword: strongPassword, newPassword: password },
      });
    }
  });
});

describe(`password change by current password (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const change = (body: Record<string, unknown>) =>
    call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', { body });

  it.each([
    ['too short', 'Xy7!short'],
    ['a common password', 'password1234'],
    ['a keyboard pattern', 'qwertyuiop1234'],
    ['the username in it', 'admin admin admin'],
  ])(
    'refuses a weak new password (%s) with 400 WeakPassword and a plain explanation',
    async (_label, weak) => {
      const { username, password } = server.demo.admin;
      const response = await change({ username, currentPassword: password, newPassword: weak });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'WeakPassword', errors: [{ field: 'newPassword' }] });
      expect(String(response.body.message).length).toBeGreaterThan(20);
    },
  );

  it('refuses a wrong current password with 401 and an unknown user with 404', async () => {
    const wrong = await change({
      username: server.demo.admin.username,
      currentPassword: 'not my password',
      newPassword: strongPassword,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errorCode).toBe('InvalidSignIn');
    const unknown = await change({ username: 'ghost', currentPassword: 'x', newPassword: strongPassword });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errorCode).toBe('ItemNotFound');
  });

  it('accepts a strong password, which then signs in, ends the old sessions, and leaves the old password useless', async () => {
    const { username, password } = server.demo.admin;
    const before = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username, password },
    });
    const response = await change({ username, currentPassword: password, newPassword: strongPassword });
    expect(response.status).toBe(204);
    const oldSession = await call(server.baseUrl, 'POST', '/api/auth/v1/launch/customer/1001', {
      token: before.body.accessToken,
    });
    expect(oldSession.status).toBe(401);
    const withOld = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username, password },
    });
    expect(withOld.status).toBe(401);
    const withNew = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username, password: strongPassword },
    });
    expect(withNew.status).toBe(200);
    const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.username, username));
    expect(row?.passwordHash.startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
  });
});
