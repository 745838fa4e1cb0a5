import type {
  AuthTokenResult,
  EnrolmentResult,
  ErrorBody,
  RecoveryCodes,
  SecondFactors,
  StaffKind,
  TotpEnrolment,
} from '@entry/domain';
import { roleIdByScope } from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox, sessions, staffUsers, tenants } from '../src/db/schema.ts';
import { hashPassword } from '../src/services/passwords.ts';
import { totpCodeAtStep, totpStepAt } from '../src/services/second-factor-secrets.ts';
import { cli } from './cli-helpers.ts';
import {
  call,
  databaseLabel,
  nextTotpCode,
  passSecondFactor,
  signInAdmin,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

const password = 'saffron kettle meadow 4711';

describe(`staff second factors: authenticator app, recovery codes, policy and step-up (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    // The per-address budget stays out of the way: these tests count the account's own budget.
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  let users = 0;
  /** A new user of `kind` with a known password and no second factor. */
  async function newUser(kind: StaffKind): Promise<{ id: number; username: string }> {
    users += 1;
    const username = `${kind}-${users}`;
    const now = server.clock.now();
    const [row] = await server.ctx.db
      .insert(staffUsers)
      .values({
        kind,
        tenantId: kind === 'admin' ? null : server.demo.tenant.customerId,
        username,
        email: `${username}@example.com`,
        displayName: `User ${users}`,
        roleId: roleIdByScope[kind],
        passwordHash: await hashPassword(password),
        passwordChangedAt: now,
        createdAt: now,
      })
      .returning({ id: staffUsers.id });
    if (row === undefined) throw new Error('no user');
    return { id: row.id, username };
  }

  const signIn = (kind: StaffKind, username: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in`, {
      body: { username, password },
    });
  const secondStep = (kind: StaffKind, token: string, body: { method: string; code: string }) =>
    call<AuthTokenResult & ErrorBody>(server.baseUrl, 'POST', `/api/auth/v1/${kind}/sign-in/second-factor`, {
      token,
      body,
    });
  const factors = (kind: StaffKind, token: string) =>
    call<SecondFactors & ErrorBody>(server.baseUrl, 'GET', `/api/auth/v1/${kind}/second-factors`, { token });
  const startTotp = (kind: StaffKind, token: string) =>
    call<TotpEnrolment & ErrorBody>(server.baseUrl, 'POST', `/api/auth/v1/${kind}/second-factors/totp`, {
      token,
    });
  const confirmTotp = (kind: StaffKind, token: string, code: string) =>
    call<EnrolmentResult & ErrorBody>(
      server.baseUrl,
      'POST',
      `/api/auth/v1/${kind}/second-factors/totp/confirm`,
      { token, body: { code } },
    );
  const regenerateCodes = (kind: StaffKind, token: string) =>
    call<RecoveryCodes & ErrorBody>(
      server.baseUrl,
      'POST',
      `/api/auth/v1/${kind}/second-factors/recovery-codes`,
      {
        token,
      },
    );
  const removeTotp = (kind: StaffKind, token: string) =>
    call<ErrorBody>(server.baseUrl, 'DELETE', `/api/auth/v1/${kind}/second-factors/totp`, { token });
  const launch = (token: string) =>
    call<ErrorBody>(server.baseUrl, 'POST', `/api/auth/v1/launch/customer/${server.demo.tenant.customerId}`, {
      token,
    });
  const refresh = (kind: StaffKind, refreshToken: string) =>
    call<AuthTokenResult>(server.baseUrl, 'POST', `/api/auth/v1/${kind}/refresh`, { body: { refreshToken } });

  /** Enrols an authenticator app with the token given; answers its secret and what the confirmation gave. */
  async function enrolTotp(kind: StaffKind, token: string) {
    const started = await startTotp(kind, token);
    expect(started.status).toBe(200);
    const { secret } = started.body;
    const confirmed = await confirmTotp(kind, token, nextTotpCode(server, secret));
    expect(confirmed.status).toBe(200);
    return { secret, result: confirmed.body };
  }

  /** A new user who has enrolled an authenticator app at its first sign-in. */
  async function enrolledUser(kind: StaffKind) {
    const user = await newUser(kind);
    if (kind === 'customer') await setPolicy('required');
    const enrolment = await signIn(kind, user.username);
    const { secret, result } = await enrolTotp(kind, enrolment.body.accessToken);
    if (kind === 'customer') await setPolicy(undefined);
    return { ...user, secret, recoveryCodes: result.recoveryCodes ?? [], auth: result.auth };
  }

  async function setPolicy(policy: 'off' | 'optional' | 'required' | undefined) {
    const [tenant] = await server.ctx.db
      .select()
      .from(tenants)
      .where(eq(tenants.id, server.demo.tenant.customerId));
    if (tenant === undefined) throw new Error('no tenant');
    const { staffSecondFactor: _dropped, ...settings } = tenant.settings;
    await server.ctx.db
      .update(tenants)
      .set({ settings: policy === undefined ? settings : { ...settings, staffSecondFactor: policy } })
      .where(eq(tenants.id, tenant.id));
  }

  const auditsOf = async (event: string, userId: number) =>
    (await server.ctx.db.select().from(auditLog).where(eq(auditLog.event, event))).filter(
      (row) => row.actor === `admin:${userId}` || row.actor === `customer:${userId}`,
    );

  it('signs the demo admin in with password then authenticator code: pending, then full with its role', async () => {
    const { username, password: demoPassword, totpSecret } = server.demo.admin;
    const pending = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username, password: demoPassword },
    });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ hasRestrictedAccess: true, accessType: 'SecondFactorPending' });
    expect(decodeJwt(pending.body.accessToken)).toMatchObject({ user: { context: { roleId: null } } });
    const listed = await factors('admin', pending.body.accessToken);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ policy: 'required', totp: { enrolled: true }, secondFactorAt: null });

    const full = await secondStep('admin', pending.body.accessToken, {
      method: 'totp',
      code: nextTotpCode(server, totpSecret),
    });
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ hasRestrictedAccess: false, accessType: 'Admin' });
    expect(decodeJwt(full.body.accessToken)).toMatchObject({
      user: { context: { roleId: roleIdByScope.admin } },
    });
    expect(full.headers.getSetCookie().some((line) => line.startsWith('entry-refresh='))).toBe(true);
    expect((await factors('admin', full.body.accessToken)).body.secondFactorAt).toBe(
      server.clock.now().toISOString(),
    );
    // The pending session's first refresh token stopped working with the upgrade.
    expect((await refresh('admin', pending.body.refreshToken)).status).toBe(401);
    expect((await refresh('admin', full.body.refreshToken)).status).toBe(200);
    expect((await launch(full.body.accessToken)).status).toBe(200);
  });

  it('lets a pending token reach only the second step, the listing and sign-out', async () => {
    const pending = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    const token = pending.body.accessToken;
    expect((await launch(token)).status).toBe(403);
    // A password alone never adds a factor to an account that has one.
    expect((await startTotp('admin', token)).status).toBe(403);
    expect((await confirmTotp('admin', token, '123456')).status).toBe(403);
    expect((await regenerateCodes('admin', token)).status).toBe(403);
    expect((await removeTotp('admin', token)).status).toBe(403);
    expect((await refresh('admin', pending.body.refreshToken)).status).toBe(401);
    const signOut = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-out', { token });
    expect(signOut.status).toBeLessThan(300);
  });

  it('ends a pending session 10 minutes after it starts', async () => {
    const pending = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    server.clock.advanceMinutes(11);
    const late = await secondStep('admin', pending.body.accessToken, {
      method: 'totp',
      code: nextTotpCode(server, server.demo.admin.totpSecret),
    });
    expect(late.status).toBe(401);
    expect(late.body).toMatchObject({ errorCode: 'NotAuthorized' });
  });

  it('gives an admin without a factor an enrolment token good only for enrolment, then full access with ten recovery codes', async () => {
    const admin = await newUser('admin');
    const enrolment = await signIn('admin', admin.username);
    expect(enrolment.status).toBe(200);
    expect(enrolment.body).toMatchObject({ hasRestrictedAccess: true, accessType: 'SecondFactorEnrolment' });
    const token = enrolment.body.accessToken;
    expect((await launch(token)).status).toBe(403);
    expect((await secondStep('admin', token, { method: 'totp', code: '123456' })).status).toBe(403);
    expect((await refresh('admin', enrolment.body.refreshToken)).status).toBe(401);
    expect((await factors('admin', token)).body).toMatchObject({
      policy: 'required',
      totp: { enrolled: false },
    });

    // A second start replaces the unconfirmed app: only the newest secret confirms.
    const first = await startTotp('admin', token);
    const second = await startTotp('admin', token);
    expect(second.body.secret).not.toBe(first.body.secret);
    expect(second.body.otpauthUri).toContain(`otpauth://totp/Account%20Access:${admin.username}?`);
    expect(second.body.qrCodeSvg).toMatch(/^<svg/);
    const stale = await confirmTotp('admin', token, nextTotpCode(server, first.body.secret));
    expect(stale.status).toBe(400);
    expect(stale.body).toMatchObject({ errorCode: 'InvalidValue', message: 'The code is not correct.' });

    const confirmed = await confirmTotp('admin', token, nextTotpCode(server, second.body.secret));
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.auth).toMatchObject({ hasRestrictedAccess: false, accessType: 'Admin' });
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    for (const code of confirmed.body.recoveryCodes ?? []) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(confirmed.body.recoveryCodes).size).toBe(10);
    expect((await launch(confirmed.body.auth.accessToken)).status).toBe(200);
    expect((await startTotp('admin', confirmed.body.auth.accessToken)).status).toBe(409);
    expect(await auditsOf('admin.second-factor.add', admin.id)).toHaveLength(1);

    // The next password sign-in asks for the second step.
    expect((await signIn('admin', admin.username)).body).toMatchObject({ accessType: 'SecondFactorPending' });
  });

  it('accepts a code once: a replayed code is refused and counted', async () => {
    const admin = await enrolledUser('admin');
    const code = nextTotpCode(server, admin.secret);
    const first = await signIn('admin', admin.username);
    expect((await secondStep('admin', first.body.accessToken, { method: 'totp', code })).status).toBe(200);
    const again = await signIn('admin', admin.username);
    const replayed = await secondStep('admin', again.body.accessToken, { method: 'totp', code });
    expect(replayed.status).toBe(401);
    expect(replayed.body).toMatchObject({ errorCode: 'InvalidSignIn', message: 'The code is not correct.' });
    const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.id, admin.id));
    expect(row?.secondFactorFailedCount).toBe(1);
  });

  it('accepts one step of drift either way and refuses two', async () => {
    const admin = await enrolledUser('admin');
    // Past the step the enrolment used, so every step below is one not yet accepted.
    server.clock.advance(60_000);
    const now = totpStepAt(server.clock.now());
    const tryStep = async (step: number) => {
      const pending = await signIn('admin', admin.username);
      return (
        await secondStep('admin', pending.body.accessToken, {
          method: 'totp',
          code: totpCodeAtStep(admin.secret, step),
        })
      ).status;
    };
    expect(await tryStep(now - 2)).toBe(401);
    expect(await tryStep(now + 2)).toBe(401);
    expect(await tryStep(now - 1)).toBe(200);
    expect(await tryStep(now + 1)).toBe(200);
  });

  it('counts wrong codes toward the second-factor lock: a parallel burst gets at most ten judged', async () => {
    const admin = await enrolledUser('admin');
    const pending = await Promise.all(Array.from({ length: 4 }, () => signIn('admin', admin.username)));
    const burst = await Promise.all(
      Array.from({ length: 24 }, (_, index) =>
        secondStep('admin', pending[index % 4]?.body.accessToken ?? '', { method: 'totp', code: '000000' }),
      ),
    );
    const wrong = burst.filter((response) => response.body.errorCode === 'InvalidSignIn');
    const locked = burst.filter((response) => response.body.errorCode === 'UserLocked');
    expect(wrong.length + locked.length).toBe(24);
    expect(wrong.length).toBeLessThanOrEqual(10);
    expect(locked.length).toBeGreaterThanOrEqual(14);
    const judged = (await auditsOf('admin.second-factor', admin.id)).filter(
      (row) => row.detail?.reason !== undefined,
    );
    expect(judged.length).toBeLessThanOrEqual(10);
    // Locked: the right code is refused too, also after a new right password.
    const right = await secondStep('admin', pending[0]?.body.accessToken ?? '', {
      method: 'totp',
      code: nextTotpCode(server, admin.secret),
    });
    expect(right.status).toBe(401);
    expect(right.body).toMatchObject({ errorCode: 'UserLocked' });
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    const again = await signIn('admin', admin.username);
    expect(again.body).toMatchObject({ accessType: 'SecondFactorPending' });
    const afterPassword = await secondStep('admin', again.body.accessToken, {
      method: 'totp',
      code: nextTotpCode(server, admin.secret),
    });
    expect(afterPassword.body).toMatchObject({ errorCode: 'UserLocked' });
  });

  /** The subjects of the mail queued for `username`, oldest first. */
  async function mailSubjects(username: string): Promise<string[]> {
    const mails = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, `${username}@example.com`))
      .orderBy(mailOutbox.id);
    return mails.map((mail) => mail.subject);
  }

  it('locks second-factor sign-in by the tenth wrong code, whatever right passwords come between, and mails the owner', async () => {
    const admin = await enrolledUser('admin');
    const answers: string[] = [];
    for (let round = 0; round < 3; round++) {
      const pending = await signIn('admin', admin.username);
      expect(pending.body).toMatchObject({ accessType: 'SecondFactorPending' });
      for (let attempt = 0; attempt < 4; attempt++) {
        const wrong = await secondStep('admin', pending.body.accessToken, {
          method: 'recovery',
          code: 'aaaaa-bbbbb',
        });
        answers.push(String(wrong.body.errorCode));
      }
    }
    expect(answers).toEqual([...Array(9).fill('InvalidSignIn'), ...Array(3).fill('UserLocked')]);
    const subjects = await mailSubjects(admin.username);
    expect(subjects.filter((subject) => subject === 'Your account was locked')).toHaveLength(1);
    const [lockMail] = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(
        and(
          eq(mailOutbox.toAddress, `${admin.username}@example.com`),
          eq(mailOutbox.subject, 'Your account was locked'),
        ),
      );
    expect(lockMail?.textBody).toMatch(/second-factor codes/);
    expect(lockMail?.textBody).toMatch(/From the address: /);

    // The lock's end starts the count over; the right code then signs in.
    server.clock.advanceMinutes(16);
    const later = await signIn('admin', admin.username);
    const right = await secondStep('admin', later.body.accessToken, {
      method: 'totp',
      code: nextTotpCode(server, admin.secret),
    });
    expect(right.status).toBe(200);
  });

  it('starts the second-factor count over only when a second step completes, never on a right password', async () => {
    const admin = await enrolledUser('admin');
    const countOf = async () => {
      const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.id, admin.id));
      return row?.secondFactorFailedCount;
    };
    const pending = await signIn('admin', admin.username);
    for (let attempt = 0; attempt < 5; attempt++) {
      await secondStep('admin', pending.body.accessToken, { method: 'totp', code: 'abcdef' });
    }
    expect(await countOf()).toBe(5);
    const again = await signIn('admin', admin.username);
    expect(again.status).toBe(200);
    expect(await countOf()).toBe(5);
    const right = await secondStep('admin', again.body.accessToken, {
      method: 'totp',
      code: nextTotpCode(server, admin.secret),
    });
    expect(right.status).toBe(200);
    expect(await countOf()).toBe(0);
  });

  it('changes the password of a user with a second factor only in a session that passed it within 15 minutes', async () => {
    const admin = await enrolledUser('admin');
    const newPassword = 'walnut harbour lantern 9031';
    const change = (token?: string) =>
      call<ErrorBody>(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
        ...(token === undefined ? {} : { token }),
        body: { username: admin.username, currentPassword: password, newPassword },
      });
    const wrongPassword = await call<ErrorBody>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/admin/password/change',
      {
        body: { username: admin.username, currentPassword: 'not the password at all', newPassword },
      },
    );

    // The password alone is refused exactly as a wrong one.
    const alone = await change();
    expect(alone.status).toBe(401);
    expect(alone.body).toEqual(wrongPassword.body);
    // The user's own session, its second factor older than 15 minutes, is asked for a step-up.
    server.clock.advanceMinutes(16);
    const stale = await change(admin.auth.accessToken);
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ errorCode: 'NotPermitted' });
    expect((await signIn('admin', admin.username)).status).toBe(200);
    expect(await mailSubjects(admin.username)).not.toContain('Your password was changed');

    const fresh = await signIn('admin', admin.username);
    const full = await passSecondFactor(server, 'admin', fresh.body.accessToken, admin.secret);
    expect((await change(full.accessToken)).status).toBe(204);
    expect((await signIn('admin', admin.username)).status).toBe(401);
    const [changedMail] = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(
        and(
          eq(mailOutbox.toAddress, `${admin.username}@example.com`),
          eq(mailOutbox.subject, 'Your password was changed'),
        ),
      );
    expect(changedMail?.textBody).toMatch(/When: .* UTC\nFrom the address: /);
  });

  it('lets a user with a second factor and an expired password pass the factor, then change the password in that session alone', async () => {
    const customer = await enrolledUser('customer');
    const [tenant] = await server.ctx.db
      .select()
      .from(tenants)
      .where(eq(tenants.id, server.demo.tenant.customerId));
    if (tenant === undefined) throw new Error('no tenant');
    await server.ctx.db
      .update(tenants)
      .set({ settings: { ...tenant.settings, maxPasswordAgeDays: 90 } })
      .where(eq(tenants.id, tenant.id));
    try {
      await server.ctx.db
        .update(staffUsers)
        .set({ passwordChangedAt: new Date(server.clock.now().getTime() - 120 * 86_400_000) })
        .where(eq(staffUsers.id, customer.id));
      const pending = await signIn('customer', customer.username);
      expect(pending.body).toMatchObject({ accessType: 'SecondFactorPending', hasRestrictedAccess: true });
      const passed = await secondStep('customer', pending.body.accessToken, {
        method: 'totp',
        code: nextTotpCode(server, customer.secret),
      });
      expect(passed.status).toBe(200);
      expect(passed.body).toMatchObject({ accessType: 'PasswordExpired', hasRestrictedAccess: true });
      // Good for nothing but the change.
      expect((await factors('customer', passed.body.accessToken)).status).toBe(403);

      const newPassword = 'meadow lantern quartz 8812';
      const change = (token?: string) =>
        call<ErrorBody>(server.baseUrl, 'POST', '/api/auth/v1/customer/password/change', {
          ...(token === undefined ? {} : { token }),
          body: { username: customer.username, currentPassword: password, newPassword },
        });
      expect((await change()).status).toBe(401);
      expect((await change(passed.body.accessToken)).status).toBe(204);
      const after = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
        body: { username: customer.username, password: newPassword },
      });
      expect(after.body).toMatchObject({ accessType: 'SecondFactorPending' });
    } finally {
      await server.ctx.db.update(tenants).set({ settings: tenant.settings }).where(eq(tenants.id, tenant.id));
    }
  });

  it('mails the user when an authenticator app is added or removed', async () => {
    const customer = await enrolledUser('customer');
    expect(await mailSubjects(customer.username)).toEqual(['A second factor was added to your account']);
    const removed = await removeTotp('customer', customer.auth.accessToken);
    expect(removed.status).toBe(204);
    expect(await mailSubjects(customer.username)).toEqual([
      'A second factor was added to your account',
      'A second factor was removed from your account',
    ]);
  });

  it('uses a recovery code once, audits and mails its use; of two racing uses one wins', async () => {
    const admin = await enrolledUser('admin');
    const [code] = admin.recoveryCodes;
    if (code === undefined) throw new Error('no recovery code');
    const pending = await Promise.all([signIn('admin', admin.username), signIn('admin', admin.username)]);
    // Typed loosely: upper case, spaces for the dash.
    const typed = ` ${code.toUpperCase().replace('-', ' ')} `;
    const race = await Promise.all(
      pending.map((session) =>
        secondStep('admin', session.body.accessToken, { method: 'recovery', code: typed }),
      ),
    );
    expect(race.map((response) => response.status).sort()).toEqual([200, 401]);
    const winner = race.find((response) => response.status === 200);
    expect(winner?.body).toMatchObject({ accessType: 'Admin', hasRestrictedAccess: false });
    const used = await auditsOf('admin.second-factor.recovery-code.used', admin.id);
    expect(used).toHaveLength(1);
    expect(used[0]?.detail).toMatchObject({ left: 9 });
    const mails = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(and(eq(mailOutbox.toAddress, `${admin.username}@example.com`)));
    expect(mails.map((mail) => mail.subject)).toContain('A recovery code was used to sign in');
    const listed = await factors('admin', winner?.body.accessToken ?? '');
    expect(listed.body.recoveryCodesLeft).toBe(9);
  });

  it('regenerates recovery codes: the earlier ones stop working', async () => {
    const admin = await enrolledUser('admin');
    const regenerated = await regenerateCodes('admin', admin.auth.accessToken);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.recoveryCodes).toHaveLength(10);
    const pending = await signIn('admin', admin.username);
    const old = await secondStep('admin', pending.body.accessToken, {
      method: 'recovery',
      code: admin.recoveryCodes[0] ?? '',
    });
    expect(old.status).toBe(401);
    const fresh = await secondStep('admin', pending.body.accessToken, {
      method: 'recovery',
      code: regenerated.body.recoveryCodes[0] ?? '',
    });
    expect(fresh.status).toBe(200);
  });

  it('needs a step-up 15 minutes after the factor: launch and factor changes answer stepUpRequired', async () => {
    let admin = await signInAdmin(server);
    server.clock.advanceMinutes(17);
    // The access token has expired meanwhile; the session's refresh keeps when the factor was used.
    const renewed = await refresh('admin', admin.refreshToken);
    expect(renewed.status).toBe(200);
    admin = renewed.body;
    const stale = await launch(admin.accessToken);
    expect(stale.status).toBe(403);
    expect(stale.body).toEqual({
      errorCode: 'NotPermitted',
      message: 'Confirm it is you with your second factor first.',
      errors: [],
      stepUpRequired: true,
    });
    const removal = await removeTotp('admin', admin.accessToken);
    expect(removal.body).toMatchObject({ errorCode: 'NotPermitted', stepUpRequired: true });
    const codes = await regenerateCodes('admin', admin.accessToken);
    expect(codes.body).toMatchObject({ stepUpRequired: true });

    const steppedUp = await passSecondFactor(
      server,
      'admin',
      admin.accessToken,
      server.demo.admin.totpSecret,
    );
    expect(steppedUp).toMatchObject({ accessType: 'Admin', hasRestrictedAccess: false });
    expect((await launch(steppedUp.accessToken)).status).toBe(200);
    const steps = (
      await server.ctx.db.select().from(auditLog).where(eq(auditLog.event, 'admin.second-factor'))
    )
      .map((row) => row.detail?.step)
      .filter((step) => step === 'step-up');
    expect(steps.length).toBeGreaterThan(0);
  });

  it("refuses to remove an admin's last factor", async () => {
    const admin = await enrolledUser('admin');
    const removal = await removeTotp('admin', admin.auth.accessToken);
    expect(removal.status).toBe(409);
    expect(removal.body).toMatchObject({ errorCode: 'InvalidState' });
  });

  it("follows the tenant's policy for customer users: optional, required, off", async () => {
    const customer = await newUser('customer');
    // Optional (the default): no factor, full access; enrolment needs no step-up.
    const optional = await signIn('customer', customer.username);
    expect(optional.body).toMatchObject({ accessType: 'Customer', hasRestrictedAccess: false });
    const { secret } = await enrolTotp('customer', optional.body.accessToken);
    const pending = await signIn('customer', customer.username);
    expect(pending.body).toMatchObject({ accessType: 'SecondFactorPending' });
    const full = await passSecondFactor(server, 'customer', pending.body.accessToken, secret);
    // Optional: the last factor may go.
    const removal = await removeTotp('customer', full.accessToken);
    expect(removal.status).toBe(204);
    expect(await auditsOf('customer.second-factor.remove', customer.id)).toHaveLength(1);
    // The recovery codes went with the last factor.
    expect((await factors('customer', full.accessToken)).body).toMatchObject({
      totp: { enrolled: false },
      recoveryCodesLeft: 0,
    });

    await setPolicy('required');
    try {
      const required = await signIn('customer', customer.username);
      expect(required.body).toMatchObject({ accessType: 'SecondFactorEnrolment', hasRestrictedAccess: true });
      const again = await enrolTotp('customer', required.body.accessToken);

      await setPolicy('off');
      const off = await signIn('customer', customer.username);
      expect(off.body).toMatchObject({ accessType: 'Customer', hasRestrictedAccess: false });
      const refused = await startTotp('customer', off.body.accessToken);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ errorCode: 'NotPermitted' });
      expect(again.secret).toEqual(expect.any(String));
    } finally {
      await setPolicy(undefined);
    }
  });

  it("lists and resets a user's factors from the CLI: sessions end, the user re-enrols and is mailed", async () => {
    const admin = await enrolledUser('admin');
    const listFactors = async () => {
      const listed = await cli(
        server,
        'user',
        'factors',
        '--kind',
        'admin',
        '--username',
        admin.username,
        '--format',
        'json',
      );
      expect(listed.code).toBe(0);
      return JSON.parse(listed.stdout) as unknown;
    };
    expect(await listFactors()).toMatchObject({
      kind: 'admin',
      username: admin.username,
      policy: 'required',
      authenticatorApp: 'confirmed',
      passkeys: [],
      recoveryCodesLeft: 10,
    });
    const reset = await cli(server, 'user', 'factors-reset', '--kind', 'admin', '--username', admin.username);
    expect(reset.code).toBe(0);
    expect(reset.stdout).toContain(`Removed the second factors of admin user ${admin.username}`);
    expect((await factors('admin', admin.auth.accessToken)).status).toBe(401);
    const [session] = await server.ctx.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, admin.auth.sessionGuid));
    expect(session?.revokedReason).toBe('second-factors-reset');
    const audited = await server.ctx.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.event, 'admin.second-factor.reset'));
    expect(audited.some((row) => row.actor === 'operator:test-operator')).toBe(true);
    const mails = await server.ctx.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.toAddress, `${admin.username}@example.com`));
    expect(mails.map((mail) => mail.subject)).toContain('Your second factors were reset');
    expect((await signIn('admin', admin.username)).body).toMatchObject({
      accessType: 'SecondFactorEnrolment',
    });
    expect(await listFactors()).toMatchObject({ authenticatorApp: 'none', recoveryCodesLeft: 0 });
  });

  it("sets a tenant's policy from the CLI", async () => {
    const customer = await newUser('customer');
    const updated = await cli(
      server,
      'tenant',
      'update',
      '--subdomain',
      'sender',
      '--staff-second-factor',
      'required',
    );
    try {
      expect(updated.code).toBe(0);
      expect((await signIn('customer', customer.username)).body).toMatchObject({
        accessType: 'SecondFactorEnrolment',
      });
      const wrong = await cli(
        server,
        'tenant',
        'update',
        '--subdomain',
        'sender',
        '--staff-second-factor',
        'always',
      );
      expect(wrong.code).toBe(2);
    } finally {
      await setPolicy(undefined);
    }
  });
});
