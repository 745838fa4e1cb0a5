import { request } from 'node:http';
import type { StaffKind } from '@entry/domain';
import { type AuthTokenResult, errorBodySchema } from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, passwordResetTokens, sessions, staffUsers } from '../src/db/schema.ts';
import { hashToken, randomToken } from '../src/services/secret-tokens.ts';
import {
  call,
  createTestDatabase,
  databaseLabel,
  type JsonResponse,
  startTestServer,
  TestClock,
  type TestDatabase,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';
import { insertStaffUser } from './helpers/staff-users.ts';

const rightPassword = 'harbour violet compass orchard 62';
const newPassword = 'thistle marble lantern quiver 85';
const wrongPassword = 'not the password at all';

/** Hundreds of sign-ins, each hashed, on the two cores the tests share. */
const burstTimeoutMs = 120_000;

/** Every 127.x.y.z address is a client of its own: the burst comes from this many of them. */
const sourceAddresses = 250;
const sourceAddress = (index: number) => `127.0.${1 + Math.floor(index / 250)}.${1 + (index % 250)}`;

/** A JSON POST on a connection of its own from `localAddress`, as a separate client sends it. */
function postFrom<T = Record<string, unknown>>(
  baseUrl: string,
  path: string,
  body: unknown,
  localAddress: string,
): Promise<JsonResponse<T>> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const sent = request(
      `${baseUrl}${path}`,
      {
        method: 'POST',
        localAddress,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          resolve({ status: response.statusCode ?? 0, headers, body: JSON.parse(text || 'null') as T });
        });
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(payload);
  });
}

let usersMade = 0;

/** A staff user of its own for each test, with `rightPassword`. */
function newStaffUser(server: TestServer, kind: StaffKind) {
  usersMade += 1;
  return insertStaffUser(server, kind, `budget-${kind}-${usersMade}`, rightPassword);
}

async function userRow(server: TestServer, id: number) {
  const [row] = await server.ctx.db.select().from(staffUsers).where(eq(staffUsers.id, id));
  return row;
}

/** The audit rows of `event` for the user, as (outcome, reason) pairs. */
async function auditedFor(server: TestServer, event: string, kind: StaffKind, id: number) {
  const rows = await server.ctx.db
    .select({ outcome: auditLog.outcome, detail: auditLog.detail })
    .from(auditLog)
    .where(and(eq(auditLog.event, event), eq(auditLog.actor, `${kind}:${id}`)));
  return rows.map((row) => ({ outcome: row.outcome, reason: row.detail.reason }));
}

/** How many passwords were compared with the user's: every wrong one audits its reason. */
const judgedWrongFor = async (server: TestServer, event: string, kind: StaffKind, id: number) =>
  (await auditedFor(server, event, kind, id)).filter((row) => row.reason === 'wrong password').length;

/**
 * The wrong passwords a burst with the right one among them got judged, with the wrong one sent
 * before it: the ten places of the budget. The right password is paid for like any other, so when
 * it signed in it held one of the ten while it was compared, and gave it back only when it was
 * done: a wrong one took that place if one was still arriving, and none did when the rest of the
 * burst had already been refused.
 */
const wrongJudgedBeside = (signedIn: number) => (signedIn === 0 ? [10] : [9, 10]);

describe(`the staff account budget under parallel bursts (${databaseLabel})`, () => {
  let server: TestServer;

  beforeAll(async () => {
    // The per-address limit stays out of the way: these bursts are about the account's budget.
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '100000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const signIn = (kind: StaffKind, username: string, password: string, from = '127.0.0.1') =>
    postFrom<AuthTokenResult>(server.baseUrl, `/api/auth/v1/${kind}/sign-in`, { username, password }, from);
  const changeByPassword = (kind: StaffKind, username: string, currentPassword: string, from = '127.0.0.1') =>
    postFrom(
      server.baseUrl,
      `/api/auth/v1/${kind}/password/change`,
      { username, currentPassword, newPassword },
      from,
    );

  const rowOf = (id: number) => userRow(server, id);
  const audited = (event: string, kind: StaffKind, id: number) => auditedFor(server, event, kind, id);
  const judgedWrong = (event: string, kind: StaffKind, id: number) => judgedWrongFor(server, event, kind, id);
  const newUser = (kind: StaffKind) => newStaffUser(server, kind);

  it.each([
    ['last', 299],
    ['first', 0],
  ])(
    'judges at most the ten of the budget when one wrong password is followed by 299 wrong and the right one (%s) at once, and the lock set during the burst survives it',
    async (_label, rightAt) => {
      const user = await newUser('admin');
      // The owner signed in earlier: a server that remembers the row must not decide on it.
      expect((await signIn('admin', user.username, rightPassword)).status).toBe(200);
      expect((await signIn('admin', user.username, wrongPassword)).body).toMatchObject({
        errorCode: 'InvalidSignIn',
      });

      const passwords = Array.from({ length: 300 }, (_, index) =>
        index === rightAt ? rightPassword : wrongPassword,
      );
      const answers = await Promise.all(
        passwords.map((password, index) =>
          signIn('admin', user.username, password, sourceAddress(index % sourceAddresses)),
        ),
      );

      // The one before the burst and nine of it, or eight beside the right one: the tenth locked the account.
      const signedIn = answers.filter((answer) => answer.status === 200).length;
      expect(signedIn).toBeLessThanOrEqual(1);
      expect(wrongJudgedBeside(signedIn)).toContain(await judgedWrong('admin.sign-in', 'admin', user.id));
      // Nothing else was compared: every other refusal was answered before the password was looked at.
      const refusals = (await audited('admin.sign-in', 'admin', user.id)).filter(
        (row) => row.outcome !== 'success',
      );
      expect(refusals.filter((row) => row.reason !== 'wrong password' && row.reason !== undefined)).toEqual(
        [],
      );
      expect(refusals).toHaveLength(301 - signedIn);

      for (const answer of answers.filter((each) => each.status !== 200)) {
        expect(answer.status).toBe(401);
        expect(['InvalidSignIn', 'UserLocked']).toContain(errorBodySchema.parse(answer.body).errorCode);
      }
      expect(
        answers.filter((answer) => errorBodySchema.safeParse(answer.body).data?.errorCode === 'InvalidSignIn')
          .length,
      ).toBeLessThanOrEqual(9);

      const after = await signIn('admin', user.username, rightPassword);
      expect(after.status).toBe(401);
      expect(after.body).toMatchObject({ errorCode: 'UserLocked' });
      const row = await rowOf(user.id);
      expect(row?.lockLevel).toBe(1);
      expect(row?.lockedUntil?.getTime()).toBe((row?.lastFailureAt?.getTime() ?? Number.NaN) + 15 * 60_000);
      expect(row?.lockedUntil?.getTime()).toBeGreaterThan(server.clock.now().getTime());

      server.clock.advanceMinutes(15);
      expect((await signIn('admin', user.username, rightPassword)).status).toBe(200);
    },
    burstTimeoutMs,
  );

  it('holds a burst of the right password to the budget too, and leaves no run of failures and no lock', async () => {
    const user = await newUser('customer');
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        signIn('customer', user.username, rightPassword, sourceAddress(index)),
      ),
    );
    // No password is known to be right before it is compared: ten at most are in flight at once.
    const signedIn = answers.filter((answer) => answer.status === 200);
    expect(signedIn.length).toBeGreaterThanOrEqual(10);
    for (const answer of answers.filter((each) => each.status !== 200)) {
      expect(answer.body).toMatchObject({ errorCode: 'UserLocked' });
    }
    const row = await rowOf(user.id);
    expect(row).toMatchObject({ failedCount: 0, lockLevel: 0, lockedUntil: null });
    expect((await signIn('customer', user.username, rightPassword)).status).toBe(200);
  });

  it(
    'never refuses a right password while no more attempts are in flight than the budget',
    async () => {
      const user = await newUser('admin');
      // Ten clients, each sending its next sign-in as soon as the last is answered: at most ten are
      // in flight at once, which the budget of ten lets through.
      const refused: unknown[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async (_, client) => {
          for (let round = 0; round < 30; round += 1) {
            const answer = await signIn('admin', user.username, rightPassword, sourceAddress(client));
            if (answer.status !== 200) refused.push(answer.body);
          }
        }),
      );
      expect(refused).toEqual([]);
      expect(await rowOf(user.id)).toMatchObject({ failedCount: 0, lockLevel: 0, lockedUntil: null });
    },
    burstTimeoutMs,
  );

  it('starts the counts over after 24 quiet hours, and a burst then still gets only the ten judged', async () => {
    const user = await newUser('admin');
    for (let i = 0; i < 10; i += 1) await signIn('admin', user.username, wrongPassword);
    expect((await rowOf(user.id))?.lockLevel).toBe(1);
    server.clock.advanceMinutes(24 * 60);

    await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        signIn('admin', user.username, wrongPassword, sourceAddress(index)),
      ),
    );
    expect(await judgedWrong('admin.sign-in', 'admin', user.id)).toBe(20);
    // The earlier lock no longer counts: this one is the first again.
    const row = await rowOf(user.id);
    expect(row?.lockLevel).toBe(1);
    expect(row?.lockedUntil).toEqual(new Date(server.clock.now().getTime() + 15 * 60_000));
  });

  it('counts wrong current passwords of password changes toward the same budget as sign-ins', async () => {
    const user = await newUser('customer');
    for (let i = 0; i < 3; i += 1) {
      expect((await signIn('customer', user.username, wrongPassword)).status).toBe(401);
    }
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        changeByPassword('customer', user.username, wrongPassword, sourceAddress(index)),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
    expect(await judgedWrong('customer.password.change', 'customer', user.id)).toBe(7);

    const row = await rowOf(user.id);
    expect(row?.lockLevel).toBe(1);
    expect(row?.lockedUntil?.getTime()).toBeGreaterThan(server.clock.now().getTime());
    expect((await signIn('customer', user.username, rightPassword)).body).toMatchObject({
      errorCode: 'UserLocked',
    });
    const change = await changeByPassword('customer', user.username, rightPassword);
    expect(change.status).toBe(401);
    expect(change.body).toMatchObject({ errorCode: 'UserLocked' });
    expect((await rowOf(user.id))?.passwordHash).toBe(user.passwordHash);
  });

  it('answers a password change for an unknown username exactly as one with a wrong current password', async () => {
    const user = await newUser('admin');
    const wrong = await changeByPassword('admin', user.username, wrongPassword);
    const unknown = await changeByPassword('admin', 'nobody-by-this-name', wrongPassword);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ errorCode: 'InvalidSignIn', errors: [{ field: 'currentPassword' }] });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: wrong.status,
      body: wrong.body,
    });
  });

  describe.each([
    ['a change by the current password', 'current'],
    ['a reset link', 'link'],
  ] as const)('a new password set by %s', (_label, by) => {
    it("voids the user's unused reset links and ends the user's other sessions, with the cause audited", async () => {
      const user = await newUser('admin');
      const sessionsBefore = await Promise.all(
        [1, 2, 3].map(() => signIn('admin', user.username, rightPassword)),
      );
      const [mine, ...others] = sessionsBefore.map((answer) => answer.body);
      if (mine === undefined) throw new Error('no session');
      const links = [randomToken(), randomToken(), randomToken()];
      await server.ctx.db.insert(passwordResetTokens).values(
        links.map((token) => ({
          hash: hashToken(token),
          userId: user.id,
          createdAt: server.clock.now(),
          expiresAt: new Date(server.clock.now().getTime() + 30 * 60_000),
        })),
      );

      const [usedLink, ...otherLinks] = links;
      const changed =
        by === 'current'
          ? await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
              body: { username: user.username, currentPassword: rightPassword, newPassword },
              token: mine.accessToken,
            })
          : await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
              body: { resetToken: usedLink, newPassword },
            });
      expect(changed.status).toBe(204);

      for (const token of otherLinks) {
        const reused = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
          body: { resetToken: token, newPassword: 'another fresh password 9031' },
        });
        expect(reused.status).toBe(409);
        expect(reused.body).toMatchObject({ errorCode: 'InvalidState' });
      }

      const rows = await server.ctx.db.select().from(sessions).where(eq(sessions.staffUserId, user.id));
      const ended = rows.filter((row) => row.revokedAt !== null);
      // The session that asked for the change stays; a reset link comes with no session to keep.
      const kept = by === 'current' ? [mine.sessionGuid] : [];
      expect(rows.filter((row) => row.revokedAt === null).map((row) => row.id)).toEqual(kept);
      expect(ended.map((row) => row.id).sort()).toEqual(
        [...others.map((other) => other.sessionGuid), ...(by === 'current' ? [] : [mine.sessionGuid])].sort(),
      );
      expect(ended.map((row) => row.revokedReason)).toEqual(ended.map(() => 'password-changed'));
      for (const other of others) {
        const refused = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/refresh', {
          body: { refreshToken: other.refreshToken },
        });
        expect(refused.status).toBe(401);
      }

      const endings = await server.ctx.db
        .select({ outcome: auditLog.outcome, detail: auditLog.detail })
        .from(auditLog)
        .where(and(eq(auditLog.event, 'admin.session.end'), eq(auditLog.actor, `admin:${user.id}`)));
      expect(endings.map((row) => row.detail.sessionId).sort()).toEqual(ended.map((row) => row.id).sort());
      expect(endings.map((row) => row.detail.cause)).toEqual(endings.map(() => 'password-changed'));
      expect(endings.map((row) => row.outcome)).toEqual(endings.map(() => 'revoked'));
    });
  });
});

describe.skipIf(testDatabaseUrl === undefined)(
  'the staff account budget on two instances of one PostgreSQL',
  () => {
    let database: TestDatabase;
    let instances: TestServer[] = [];
    const clock = new TestClock();

    beforeAll(async () => {
      database = await createTestDatabase();
      const env = { RATE_LIMIT_FAILURES: '100000' };
      const first = await startTestServer({ sharedDatabase: database, clock, env });
      const second = await startTestServer({ sharedDatabase: database, clock, env });
      instances = [first, second];
    });
    afterAll(async () => {
      for (const instance of instances.reverse()) await instance.close();
      await database?.drop();
    });

    it(
      'judges at most the ten of the budget when a burst is shared between the instances',
      async () => {
        const [first] = instances;
        if (first === undefined) throw new Error('no instance');
        const user = await newStaffUser(first, 'admin');
        const signInOn = (index: number, password: string) =>
          postFrom(
            instances[index % instances.length]?.baseUrl ?? '',
            '/api/auth/v1/admin/sign-in',
            { username: user.username, password },
            sourceAddress(index % sourceAddresses),
          );
        expect((await signInOn(0, wrongPassword)).status).toBe(401);
        const answers = await Promise.all(
          Array.from({ length: 300 }, (_, index) =>
            signInOn(index, index === 150 ? rightPassword : wrongPassword),
          ),
        );
        const signedIn = answers.filter((answer) => answer.status === 200).length;
        expect(signedIn).toBeLessThanOrEqual(1);
        expect(wrongJudgedBeside(signedIn)).toContain(
          await judgedWrongFor(first, 'admin.sign-in', 'admin', user.id),
        );
        for (const index of [0, 1]) {
          expect((await signInOn(index, rightPassword)).body).toMatchObject({ errorCode: 'UserLocked' });
        }
        expect((await userRow(first, user.id))?.lockLevel).toBe(1);
      },
      burstTimeoutMs,
    );
  },
);
