import type {
  AuthTokenResult,
  EnrolmentResult,
  ErrorBody,
  PasskeyOptionsResult,
  SecondFactors,
  StaffKind,
} from '@entry/domain';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsOrigin } from '../src/config.ts';
import { auditLog, sessions, staffPasskeys, staffUsers, webauthnChallenges } from '../src/db/schema.ts';
import { pruneExpiredRows } from '../src/services/retention.ts';
import { challengeLifetimeMs } from '../src/services/webauthn.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';
import { type ResponseTweaks, SoftAuthenticator } from './helpers/soft-authenticator.ts';
import { insertStaffUser } from './helpers/staff-users.ts';

const password = 'harbour violet compass orchard 62';

describe(`staff passkeys (${databaseLabel})`, () => {
  let server: TestServer;
  let origin: string;
  /** PUBLIC_DOMAIN is `localhost` here, which browsers refuse as the party of its subdomains. */
  const relyingPartyId = 'apps.localhost';

  beforeAll(async () => {
    // The per-address limit stays out of the way: the account's own budget is under test. Access
    // tokens outlive the step-up window, so a test can let the window pass with one token.
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '100000', ACCESS_TOKEN_MINUTES: '60' } });
    origin = appsOrigin(server.config);
    expect(server.config.publicDomain).toBe('localhost');
  });
  afterAll(async () => {
    await server?.close();
  });

  let usersMade = 0;
  /** A staff user of its own for each test. */
  function newUser(kind: StaffKind) {
    usersMade += 1;
    return insertStaffUser(server, kind, `passkey-${kind}-${usersMade}`, password);
  }

  const base = (kind: StaffKind) => `/api/auth/v1/${kind}`;
  const post = <T>(path: string, token?: string, body?: unknown) =>
    call<T>(server.baseUrl, 'POST', path, {
      ...(token === undefined ? {} : { token }),
      ...(body === undefined ? {} : { body }),
    });

  async function signInWithPassword(kind: StaffKind, username: string): Promise<AuthTokenResult> {
    const answer = await post<AuthTokenResult>(`${base(kind)}/sign-in`, undefined, { username, password });
    expect(answer.status).toBe(200);
    return answer.body;
  }

  async function registrationOptions(kind: StaffKind, token: string) {
    return post<PasskeyOptionsResult & ErrorBody>(`${base(kind)}/second-factors/passkeys/options`, token);
  }

  async function addPasskey(
    kind: StaffKind,
    token: string,
    authenticator: SoftAuthenticator,
    name = 'Laptop',
  ) {
    const options = await registrationOptions(kind, token);
    expect(options.status).toBe(200);
    return post<EnrolmentResult & ErrorBody>(`${base(kind)}/second-factors/passkeys`, token, {
      challengeId: options.body.challengeId,
      name,
      response: authenticator.register(options.body.options),
    });
  }

  /** A new user with one passkey on `authenticator`; `token` is the full session the enrolment gave. */
  async function enrolled(kind: StaffKind, authenticator: SoftAuthenticator) {
    const user = await newUser(kind);
    const first = await signInWithPassword(kind, user.username);
    const added = await addPasskey(kind, first.accessToken, authenticator);
    expect(added.status).toBe(200);
    return { user, token: added.body.auth.accessToken, sessionId: added.body.auth.sessionGuid };
  }

  async function signInOptions(kind: StaffKind, token?: string) {
    const options = await post<PasskeyOptionsResult>(`${base(kind)}/sign-in/passkey/options`, token);
    expect(options.status).toBe(200);
    return options.body;
  }

  function answer(kind: StaffKind, challengeId: string, response: unknown, token?: string) {
    return post<AuthTokenResult & ErrorBody>(`${base(kind)}/sign-in/passkey`, token, {
      challengeId,
      response,
    });
  }

  /** Signs in with the authenticator's passkey: alone, or with the session of `token`. */
  async function passkeySignIn(
    kind: StaffKind,
    authenticator: SoftAuthenticator,
    token?: string,
    tweaks?: ResponseTweaks,
  ) {
    const options = await signInOptions(kind, token);
    return answer(kind, options.challengeId, authenticator.authenticate(options.options, tweaks), token);
  }

  const passkeysOf = (userId: number) =>
    server.ctx.db.select().from(staffPasskeys).where(eq(staffPasskeys.staffUserId, userId));

  const sessionRow = async (id: string) => {
    const [row] = await server.ctx.db.select().from(sessions).where(eq(sessions.id, id));
    return row;
  };

  const userRow = async (id: number) => {
    const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.id, id));
    return row;
  };

  const audited = (event: string, actor: string) =>
    server.ctx.db
      .select({ outcome: auditLog.outcome, detail: auditLog.detail })
      .from(auditLog)
      .where(and(eq(auditLog.event, event), eq(auditLog.actor, actor)));

  it('registers several passkeys for an admin: the first one gives full access and recovery codes', async () => {
    const laptop = new SoftAuthenticator(origin, true);
    const user = await newUser('admin');
    const first = await signInWithPassword('admin', user.username);
    expect(first).toMatchObject({ hasRestrictedAccess: true, accessType: 'SecondFactorEnrolment' });

    const options = await registrationOptions('admin', first.accessToken);
    expect(options.status).toBe(200);
    expect(options.body.options).toMatchObject({
      rp: { id: relyingPartyId },
      user: { name: user.username },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: [],
    });
    const added = await post<EnrolmentResult>(
      '/api/auth/v1/admin/second-factors/passkeys',
      first.accessToken,
      {
        challengeId: options.body.challengeId,
        name: 'Work laptop',
        response: laptop.register(options.body.options),
      },
    );
    expect(added.status).toBe(200);
    expect(added.headers.get('set-cookie')).toContain('entry-refresh=');
    expect(added.body.recoveryCodes).toHaveLength(10);
    expect(added.body.auth).toMatchObject({
      hasRestrictedAccess: false,
      accessType: 'Admin',
      sessionGuid: first.sessionGuid,
    });
    expect((await sessionRow(first.sessionGuid))?.secondFactorAt).toEqual(server.clock.now());
    expect(await passkeysOf(user.id)).toEqual([
      expect.objectContaining({
        credentialId: laptop.credentials[0]?.id,
        name: 'Work laptop',
        counter: 0,
        transports: ['internal'],
        deviceType: 'multiDevice',
        backedUp: true,
      }),
    ]);

    const phone = new SoftAuthenticator(origin);
    const full = added.body.auth.accessToken;
    const again = await registrationOptions('admin', full);
    expect(again.body.options).toMatchObject({ excludeCredentials: [{ id: laptop.credentials[0]?.id }] });
    const second = await addPasskey('admin', full, phone, 'Phone');
    expect(second.status).toBe(200);
    expect(second.body.recoveryCodes).toBeNull();
    expect((await passkeysOf(user.id)).map((passkey) => [passkey.name, passkey.backedUp])).toEqual([
      ['Work laptop', true],
      ['Phone', false],
    ]);
    expect((await audited('admin.second-factor.add', `admin:${user.id}`)).map((row) => row.outcome)).toEqual([
      'success',
      'success',
    ]);
  });

  it('signs in with a passkey alone (usernameless): a full session whose second factor is now', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('admin', authenticator);
    server.clock.advanceMinutes(1);

    const options = await signInOptions('admin');
    expect(options.options).toMatchObject({
      rpId: relyingPartyId,
      userVerification: 'required',
      allowCredentials: [],
    });
    const signedIn = await answer('admin', options.challengeId, authenticator.authenticate(options.options));
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('set-cookie')).toContain('entry-refresh=');
    expect(signedIn.body).toMatchObject({ hasRestrictedAccess: false, accessType: 'Admin' });
    expect(await sessionRow(signedIn.body.sessionGuid)).toMatchObject({
      staffUserId: user.id,
      secondFactorAt: server.clock.now(),
    });
    expect(await passkeysOf(user.id)).toEqual([
      expect.objectContaining({ counter: 1, lastUsedAt: server.clock.now() }),
    ]);
    const signIns = await audited('admin.sign-in', `admin:${user.id}`);
    expect(signIns.at(-1)).toMatchObject({ outcome: 'success', detail: { method: 'passkey' } });
  });

  it('passes the second step after a password with a passkey: the pending session gets full access', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('customer', authenticator);
    const pending = await signInWithPassword('customer', user.username);
    expect(pending).toMatchObject({ hasRestrictedAccess: true, accessType: 'SecondFactorPending' });

    const options = await signInOptions('customer', pending.accessToken);
    expect(options.options).toMatchObject({ allowCredentials: [{ id: authenticator.credentials[0]?.id }] });
    const passed = await answer(
      'customer',
      options.challengeId,
      authenticator.authenticate(options.options),
      pending.accessToken,
    );
    expect(passed.status).toBe(200);
    expect(passed.body).toMatchObject({
      hasRestrictedAccess: false,
      accessType: 'Customer',
      sessionGuid: pending.sessionGuid,
    });
    expect((await sessionRow(pending.sessionGuid))?.secondFactorAt).toEqual(server.clock.now());
    const refreshed = await post<AuthTokenResult>('/api/auth/v1/customer/refresh', undefined, {
      refreshToken: pending.refreshToken,
    });
    expect(refreshed.status).toBe(401);
  });

  it('steps a full session up with a passkey before its factors change', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user, token, sessionId } = await enrolled('admin', authenticator);
    server.clock.advanceMinutes(16);

    const stale = await registrationOptions('admin', token);
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ errorCode: 'NotPermitted', stepUpRequired: true });
    const stepped = await passkeySignIn('admin', authenticator, token);
    expect(stepped.status).toBe(200);
    expect(stepped.body).toMatchObject({ accessType: 'Admin', sessionGuid: sessionId });
    expect((await sessionRow(sessionId))?.secondFactorAt).toEqual(server.clock.now());
    expect((await registrationOptions('admin', stepped.body.accessToken)).status).toBe(200);
    const steps = await audited('admin.second-factor', `admin:${user.id}`);
    expect(steps.at(-1)).toMatchObject({
      outcome: 'success',
      detail: { method: 'passkey', step: 'step-up' },
    });
  });

  it('steps up with a passkey before a launch, which needs a second factor of the last 15 minutes', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { token } = await enrolled('admin', authenticator);
    server.clock.advanceMinutes(16);
    const launch = (bearer: string) => post<ErrorBody>('/api/auth/v1/launch/customer/1001', bearer);
    const stale = await launch(token);
    expect(stale.status).toBe(403);
    expect(stale.body).toMatchObject({ stepUpRequired: true });
    const stepped = await passkeySignIn('admin', authenticator, token);
    expect(stepped.status).toBe(200);
    expect((await launch(stepped.body.accessToken)).status).toBe(200);
  });

  it('lists the passkeys with the other factors', async () => {
    const authenticator = new SoftAuthenticator(origin, true);
    const { user } = await enrolled('customer', authenticator);
    const pending = await signInWithPassword('customer', user.username);
    const listed = await call<SecondFactors>(server.baseUrl, 'GET', '/api/auth/v1/customer/second-factors', {
      token: pending.accessToken,
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      policy: 'optional',
      totp: { enrolled: false },
      passkeys: [
        {
          id: authenticator.credentials[0]?.id,
          name: 'Laptop',
          createdAt: server.clock.now().toISOString(),
          lastUsedAt: null,
          backedUp: true,
        },
      ],
      recoveryCodesLeft: 10,
      secondFactorAt: null,
    });
  });

  it('takes each challenge once', async () => {
    const authenticator = new SoftAuthenticator(origin);
    await enrolled('admin', authenticator);
    const options = await signInOptions('admin');
    const first = await answer('admin', options.challengeId, authenticator.authenticate(options.options));
    expect(first.status).toBe(200);
    const replayed = await answer('admin', options.challengeId, authenticator.authenticate(options.options));
    expect(replayed.status).toBe(409);
    expect(replayed.body).toMatchObject({ errorCode: 'InvalidState' });
  });

  it("refuses a challenge answered with another session's token, or with none", async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('admin', authenticator);
    const mine = await signInWithPassword('admin', user.username);
    const other = await signInWithPassword('admin', user.username);

    const ofMine = await signInOptions('admin', mine.accessToken);
    const response = () => authenticator.authenticate(ofMine.options);
    expect((await answer('admin', ofMine.challengeId, response(), other.accessToken)).status).toBe(409);
    const bound = await signInOptions('admin', mine.accessToken);
    expect((await answer('admin', bound.challengeId, authenticator.authenticate(bound.options))).status).toBe(
      409,
    );
    const usernameless = await signInOptions('admin');
    const withSession = await answer(
      'admin',
      usernameless.challengeId,
      authenticator.authenticate(usernameless.options),
      mine.accessToken,
    );
    expect(withSession.status).toBe(409);
    expect(withSession.body.message).toBe(
      'This passkey request has expired or was already answered. Please try again.',
    );
  });

  it('refuses a challenge answered after five minutes, and the retention job deletes it', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { token } = await enrolled('admin', authenticator);
    const usernameless = await signInOptions('admin');
    const options = await signInOptions('admin', token);
    server.clock.advance(challengeLifetimeMs + 1000);
    for (const [challenge, bearer] of [
      [usernameless, undefined],
      [options, token],
    ] as const) {
      const late = await answer(
        'admin',
        challenge.challengeId,
        authenticator.authenticate(challenge.options),
        bearer,
      );
      expect(late.status).toBe(409);
      expect(late.body).toMatchObject({ errorCode: 'InvalidState' });
    }

    const stale = await signInOptions('admin', token);
    server.clock.advance(challengeLifetimeMs + 1000);
    expect(
      (await pruneExpiredRows(server.ctx.db, server.clock.now())).webauthnChallenges,
    ).toBeGreaterThanOrEqual(2);
    const left = await server.ctx.db
      .select()
      .from(webauthnChallenges)
      .where(inArray(webauthnChallenges.id, [options.challengeId, stale.challengeId]));
    expect(left).toEqual([]);
  });

  it('refuses an answer made on another origin, or without user verification', async () => {
    const authenticator = new SoftAuthenticator(origin);
    await enrolled('admin', authenticator);
    for (const tweaks of [{ origin: 'http://sender.localhost:8080' }, { userVerified: false }]) {
      const refused = await passkeySignIn('admin', authenticator, undefined, tweaks);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({
        errorCode: 'InvalidSignIn',
        message: 'The passkey could not be verified. Please try again.',
      });
    }

    const user = await newUser('admin');
    const enrolment = await signInWithPassword('admin', user.username);
    const options = await registrationOptions('admin', enrolment.accessToken);
    const elsewhere = await post<ErrorBody>(
      '/api/auth/v1/admin/second-factors/passkeys',
      enrolment.accessToken,
      {
        challengeId: options.body.challengeId,
        name: 'Phishing',
        response: new SoftAuthenticator('http://apps.example.com').register(options.body.options),
      },
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body).toMatchObject({ errorCode: 'InvalidValue' });
    expect(await passkeysOf(user.id)).toEqual([]);
  });

  it('refuses a counter that went back, as a cloned authenticator sends', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('admin', authenticator);
    expect((await passkeySignIn('admin', authenticator, undefined, { counter: 5 })).status).toBe(200);
    const cloned = await passkeySignIn('admin', authenticator, undefined, { counter: 3 });
    expect(cloned.status).toBe(401);
    expect(cloned.body).toMatchObject({ errorCode: 'InvalidSignIn' });
    expect(await passkeysOf(user.id)).toEqual([expect.objectContaining({ counter: 5 })]);
  });

  it('refuses a passkey it does not know, and one of the other kind of user', async () => {
    const stranger = new SoftAuthenticator(origin);
    stranger.register({ challenge: 'AAAA', rp: { id: relyingPartyId }, user: { id: 'AAAA' } });
    const unknown = await passkeySignIn('admin', stranger);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({
      errorCode: 'InvalidSignIn',
      message: 'This passkey is not registered.',
    });

    const adminsKey = new SoftAuthenticator(origin);
    await enrolled('admin', adminsKey);
    const asCustomer = await passkeySignIn('customer', adminsKey);
    expect(asCustomer.status).toBe(401);
    expect(asCustomer.body).toMatchObject({ message: 'This passkey is not registered.' });
  });

  it('renames and removes passkeys, keeping the last factor of an account that requires one', async () => {
    const laptop = new SoftAuthenticator(origin);
    const phone = new SoftAuthenticator(origin);
    const { user, token } = await enrolled('admin', laptop);
    expect((await addPasskey('admin', token, phone, 'Phone')).status).toBe(200);
    const [laptopId, phoneId] = [laptop.credentials[0]?.id, phone.credentials[0]?.id];
    const passkeyPath = (id: string | undefined) => `/api/auth/v1/admin/second-factors/passkeys/${id}`;

    const renamed = await call(server.baseUrl, 'PATCH', passkeyPath(laptopId), {
      token,
      body: { name: 'Desk' },
    });
    expect(renamed.status).toBe(204);
    expect((await passkeysOf(user.id)).find((row) => row.credentialId === laptopId)?.name).toBe('Desk');
    expect((await call(server.baseUrl, 'DELETE', passkeyPath('bm90LW1pbmU'), { token })).status).toBe(404);

    expect((await call(server.baseUrl, 'DELETE', passkeyPath(laptopId), { token })).status).toBe(204);
    const last = await call<ErrorBody>(server.baseUrl, 'DELETE', passkeyPath(phoneId), { token });
    expect(last.status).toBe(409);
    expect(last.body).toMatchObject({ errorCode: 'InvalidState' });
    expect((await passkeysOf(user.id)).map((row) => row.credentialId)).toEqual([phoneId]);
    const removals = await audited('admin.second-factor.remove', `admin:${user.id}`);
    expect(removals).toEqual([
      expect.objectContaining({ detail: { method: 'passkey', passkeyId: laptopId } }),
    ]);

    const customersKey = new SoftAuthenticator(origin);
    const customer = await enrolled('customer', customersKey);
    const optional = await call(
      server.baseUrl,
      'DELETE',
      passkeyPath(customersKey.credentials[0]?.id).replace('admin', 'customer'),
      {
        token: customer.token,
      },
    );
    expect(optional.status).toBe(204);
    // The recovery codes went with the last factor, as when the last factor is the app.
    const listed = await call<SecondFactors>(server.baseUrl, 'GET', '/api/auth/v1/customer/second-factors', {
      token: customer.token,
    });
    expect(listed.body).toMatchObject({ passkeys: [], recoveryCodesLeft: 0 });
  });

  it('keeps one of the last two factors when both are removed at once', async () => {
    const laptop = new SoftAuthenticator(origin);
    const phone = new SoftAuthenticator(origin);
    const { user, token } = await enrolled('admin', laptop);
    expect((await addPasskey('admin', token, phone, 'Phone')).status).toBe(200);
    const removals = await Promise.all(
      [laptop, phone].map((authenticator) =>
        call(
          server.baseUrl,
          'DELETE',
          `/api/auth/v1/admin/second-factors/passkeys/${authenticator.credentials[0]?.id}`,
          { token },
        ),
      ),
    );
    expect(removals.map((removal) => removal.status).sort()).toEqual([204, 409]);
    expect(await passkeysOf(user.id)).toHaveLength(1);
  });

  it('lets a pending session never add a passkey, and an enrolment session never sign in with one', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('admin', authenticator);
    const pending = await signInWithPassword('admin', user.username);
    const adding = await registrationOptions('admin', pending.accessToken);
    expect(adding.status).toBe(403);
    expect(adding.body).toMatchObject({ errorCode: 'NotPermitted' });

    const newcomer = await newUser('admin');
    const enrolment = await signInWithPassword('admin', newcomer.username);
    const signingIn = await post<ErrorBody>(
      '/api/auth/v1/admin/sign-in/passkey/options',
      enrolment.accessToken,
    );
    expect(signingIn.status).toBe(403);
  });

  it('writes nothing for a parallel burst of usernameless options calls from one address', async () => {
    const before = await server.ctx.db.$count(webauthnChallenges);
    const burst = await Promise.all(
      Array.from({ length: 40 }, () =>
        post<PasskeyOptionsResult>(`${base('admin')}/sign-in/passkey/options`),
      ),
    );
    expect(burst.map((options) => options.status)).toEqual(burst.map(() => 200));
    expect(new Set(burst.map((options) => options.body.challengeId)).size).toBe(burst.length);
    expect(await server.ctx.db.$count(webauthnChallenges)).toBe(before);
  });

  it('takes a usernameless challenge once when its answers race', async () => {
    const authenticator = new SoftAuthenticator(origin);
    await enrolled('admin', authenticator);
    const options = await signInOptions('admin');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        answer('admin', options.challengeId, authenticator.authenticate(options.options)),
      ),
    );
    const codes = answers.map((each) => `${each.status} ${each.body.errorCode ?? ''}`.trim());
    expect(codes.filter((code) => code === '200')).toHaveLength(1);
    expect(codes.filter((code) => code === '409 InvalidState')).toHaveLength(answers.length - 1);
  });

  it("counts failed passkey tries toward the second factor's lock, a parallel burst judging ten at most", async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('admin', authenticator);
    const burst = 30;
    const challenges = [];
    for (let index = 0; index < burst; index++) challenges.push(await signInOptions('admin'));
    const answers = await Promise.all(
      challenges.map((options) =>
        answer(
          'admin',
          options.challengeId,
          authenticator.authenticate(options.options, { origin: 'http://evil.localhost:8080' }),
        ),
      ),
    );
    const codes = answers.map((refused) => `${refused.status} ${refused.body.errorCode}`);
    expect(codes.filter((code) => code === '401 InvalidSignIn')).toHaveLength(9);
    expect(codes.filter((code) => code === '401 UserLocked')).toHaveLength(burst - 9);
    // The try that locks says until when; those refused while it was still being judged cannot yet.
    expect(answers.filter((refused) => refused.headers.get('retry-after') === '900').length).toBeGreaterThan(
      0,
    );
    const judged = (await audited('admin.second-factor', `admin:${user.id}`)).filter(
      (row) => row.detail.reason === 'passkey not verified',
    );
    expect(judged).toHaveLength(10);
    expect(await userRow(user.id)).toMatchObject({
      secondFactorLockedUntil: expect.any(Date),
      lockedUntil: null,
    });

    const right = await passkeySignIn('admin', authenticator);
    expect(right.status).toBe(401);
    expect(right.body).toMatchObject({ errorCode: 'UserLocked' });
    expect(right.headers.get('retry-after')).toBe('900');
  });

  it('gives the try back when the passkey holds, ending the run of failures', async () => {
    const authenticator = new SoftAuthenticator(origin);
    const { user } = await enrolled('customer', authenticator);
    for (let index = 0; index < 3; index++) {
      expect(
        (await passkeySignIn('customer', authenticator, undefined, { userVerified: false })).status,
      ).toBe(401);
    }
    expect(await userRow(user.id)).toMatchObject({ secondFactorFailedCount: 3 });
    expect((await passkeySignIn('customer', authenticator)).status).toBe(200);
    expect(await userRow(user.id)).toMatchObject({ secondFactorFailedCount: 0 });
  });
});
