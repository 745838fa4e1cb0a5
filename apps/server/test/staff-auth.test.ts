import { type AuthTokenResult, authTokenResultSchema, errorBodySchema } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, sessions, staffUsers, tenants } from '../src/db/schema.ts';
import { hashPassword } from '../src/services/passwords.ts';
import {
  call,
  databaseLabel,
  nextTotpCode,
  passSecondFactor,
  signInAdmin,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

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
      const passwordResponse = await call<AuthTokenResult>(
        server.baseUrl,
        'POST',
        `/api/auth/v1/${kind}/sign-in`,
        { body: { username, password } },
      );
      expect(passwordResponse.status).toBe(200);
      // An admin has an authenticator app (every admin must): its code completes the sign-in.
      const response =
        kind === 'admin'
          ? await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in/second-factor', {
              token: passwordResponse.body.accessToken,
              body: { method: 'totp', code: nextTotpCode(server, server.demo.admin.totpSecret) },
            })
          : passwordResponse;
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

  const change = (body: Record<string, unknown>, token?: string) =>
    call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
      body,
      ...(token === undefined ? {} : { token }),
    });

  it.each([
    ['too short', 'Xy7!short'],
    ['a common password', 'password1234'],
    ['a keyboard pattern', 'qwertyuiop1234'],
    ['the username in it', 'admin admin admin'],
  ])(
    'refuses a weak new password (%s) with 400 WeakPassword and a plain explanation',
    async (_label, weak) => {
      const { username, password } = server.demo.admin;
      // The demo admin has a second factor: only a session that passed it may change the password.
      const session = await signInAdmin(server);
      const response = await change(
        { username, currentPassword: password, newPassword: weak },
        session.accessToken,
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'WeakPassword', errors: [{ field: 'newPassword' }] });
      expect(String(response.body.message).length).toBeGreaterThan(20);
    },
  );

  it('refuses a wrong current password with 401, and an unknown user the same way', async () => {
    const wrong = await change({
      username: server.demo.admin.username,
      currentPassword: 'not my password',
      newPassword: strongPassword,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errorCode).toBe('InvalidSignIn');
    const unknown = await change({ username: 'ghost', currentPassword: 'x', newPassword: strongPassword });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('accepts a strong password, which then signs in, ends the old sessions, and leaves the old password useless', async () => {
    const { username, password } = server.demo.admin;
    const before = await signInAdmin(server);
    const changing = await signInAdmin(server);
    const response = await change(
      { username, currentPassword: password, newPassword: strongPassword },
      changing.accessToken,
    );
    expect(response.status).toBe(204);
    const oldSession = await call(server.baseUrl, 'POST', '/api/auth/v1/launch/customer/1001', {
      token: before.accessToken,
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

/**
 * Rows changed behind the server's back after a sign-in, as another instance or an operator
 * command changes them: each sign-in decides on the row as it is.
 */
describe(`a staff user signed in before and changed elsewhere since (${databaseLabel})`, () => {
  let server: TestServer;
  let original: typeof staffUsers.$inferSelect;
  const otherPassword = 'quartz lantern meadow bicycle 47';

  beforeAll(async () => {
    server = await startTestServer();
    const [row] = await server.ctx.db
      .select()
      .from(staffUsers)
      .where(eq(staffUsers.username, server.demo.admin.username));
    if (row === undefined) throw new Error('no demo admin');
    original = row;
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    const { id: _id, ...columns } = original;
    await changeElsewhere(columns);
    // Signed in once, as the user was before the change.
    expect((await signIn(server.demo.admin.password)).status).toBe(200);
  });

  const signIn = (password: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password },
    });
  const changeElsewhere = (values: Partial<typeof staffUsers.$inferInsert>) =>
    server.ctx.db.update(staffUsers).set(values).where(eq(staffUsers.id, original.id));
  const currentRow = async () => {
    const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.id, original.id));
    return row;
  };

  it('refuses the right password once the account was locked elsewhere', async () => {
    const lockedUntil = new Date(server.clock.now().getTime() + 15 * 60_000);
    await changeElsewhere({ lockedUntil, lockLevel: 1, lastFailureAt: server.clock.now() });
    const response = await signIn(server.demo.admin.password);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ errorCode: 'UserLocked' });
  });

  it('refuses the right password once the account was disabled elsewhere, without counting it', async () => {
    await changeElsewhere({ disabled: true });
    const response = await signIn(server.demo.admin.password);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ errorCode: 'InvalidSignIn' });
    const wrong = await signIn('a wrong guess for a disabled account');
    expect(wrong.body).toMatchObject({ errorCode: 'InvalidSignIn' });
    expect((await currentRow())?.failedCount).toBe(0);
  });

  it('takes a password set elsewhere at once, without counting a failure', async () => {
    await changeElsewhere({ passwordHash: await hashPassword(otherPassword) });
    expect((await signIn(otherPassword)).status).toBe(200);
    expect((await currentRow())?.failedCount).toBe(0);
  });

  it('refuses the password a user had before it was changed elsewhere, and counts it', async () => {
    await changeElsewhere({ passwordHash: await hashPassword(otherPassword) });
    const response = await signIn(server.demo.admin.password);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ errorCode: 'InvalidSignIn' });
    expect((await currentRow())?.failedCount).toBe(1);
  });

  it('puts the name and role set elsewhere in the token', async () => {
    await changeElsewhere({ displayName: 'Ada Renamed', roleId: 2 });
    const response = await signIn(server.demo.admin.password);
    expect(response.status).toBe(200);
    const full = await passSecondFactor(
      server,
      'admin',
      response.body.accessToken,
      server.demo.admin.totpSecret,
    );
    expect(decodeJwt(full.accessToken)).toMatchObject({
      user: { name: 'Ada Renamed', context: { roleId: 2 } },
    });
  });

  it('signs in many at once, each with a session and an audit row of its own', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => signIn(server.demo.admin.password)));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const sessionIds = responses.map((response) => response.body.sessionGuid);
    expect(new Set(sessionIds).size).toBe(sessionIds.length);
    for (const sessionId of sessionIds) {
      const [session] = await server.ctx.db.select().from(sessions).where(eq(sessions.id, sessionId));
      expect(session).toMatchObject({ staffUserId: original.id, revokedAt: null });
    }
    const audited = await server.ctx.db
      .select({ detail: auditLog.detail })
      .from(auditLog)
      .where(eq(auditLog.event, 'admin.sign-in'));
    const auditedSessions = audited.map((row) => (row.detail as { sessionId?: string } | null)?.sessionId);
    expect(auditedSessions).toEqual(expect.arrayContaining(sessionIds));
  });

  it('ends a run of failures counted elsewhere', async () => {
    await changeElsewhere({ failedCount: 9, lastFailureAt: server.clock.now() });
    expect((await signIn(server.demo.admin.password)).status).toBe(200);
    expect((await currentRow())?.failedCount).toBe(0);
    // The run ended, so the next wrong password is the first of a new one, not the tenth.
    expect((await signIn('a wrong guess after the reset')).body).toMatchObject({
      errorCode: 'InvalidSignIn',
    });
  });
});
