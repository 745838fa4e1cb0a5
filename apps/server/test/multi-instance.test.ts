import { randomUUID } from 'node:crypto';
import type { AuthTokenResult, ConsumerIdentityToken } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox } from '../src/db/schema.ts';
import { RedisFailureCountStore } from '../src/services/rate-limit.ts';
import { createConsumer, createToken, paymentData } from './consumer-fixtures.ts';
import {
  call,
  callFrom,
  createTestDatabase,
  loopbackAddress,
  startTestServer,
  TestClock,
  type TestDatabase,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';

/**
 * Two server instances on one PostgreSQL database and one Redis, as when the product is scaled
 * out: sessions, verification locks and per-IP limits hold across both.
 */

const redisUrl = process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined;
const defaultFailureLimit = 30;

if (testDatabaseUrl === undefined) {
  console.info(
    'multi-instance tests skipped: they need PostgreSQL (set TEST_DATABASE_URL); PGlite is single-process.',
  );
} else if (redisUrl === undefined) {
  console.info('multi-instance tests skipped: they need Redis for the shared limits (set TEST_REDIS_URL).');
}

describe.skipIf(testDatabaseUrl === undefined || redisUrl === undefined)(
  'two instances on one PostgreSQL and Redis',
  () => {
    let database: TestDatabase;
    let redis: Redis;
    let first: TestServer;
    let second: TestServer;
    const clock = new TestClock();

    beforeAll(async () => {
      database = await createTestDatabase();
      redis = new Redis(redisUrl ?? '', { maxRetriesPerRequest: 2 });
      // A prefix of this run's own, so parallel runs and other tests never share counters.
      const prefix = `entry-test:${randomUUID()}:`;
      first = await startTestServer({
        sharedDatabase: database,
        clock,
        failureStore: new RedisFailureCountStore(redis, prefix),
      });
      second = await startTestServer({
        sharedDatabase: database,
        clock,
        failureStore: new RedisFailureCountStore(redis, prefix),
      });
    });
    afterAll(async () => {
      await second?.close();
      await first?.close();
      await database?.drop();
      await redis?.quit();
    });
    beforeEach(() => {
      // Both counting windows lie behind the clock afterwards, so each test starts from zero.
      clock.advanceMinutes(20);
    });

    const tenant = { customerId: 1001, subdomain: 'sender' };
    const lookupPath = '/api/auth/v1/consumer/sign-in/lookup';

    it('a session made on one instance refreshes on the other, and sign-out on one holds on both', async () => {
      const consumer = await createConsumer(first);
      const direct = await createToken(first, consumer, 'Direct');
      const signedIn = await call<AuthTokenResult>(
        first.baseUrl,
        'POST',
        '/api/auth/v1/consumer/sign-in/identity-token',
        {
          body: { ...tenant, token: direct.guid },
        },
      );
      expect(signedIn.status).toBe(200);

      const asOwnerOnSecond = await call<ConsumerIdentityToken>(
        second.baseUrl,
        'GET',
        `/api/auth/v1/consumers/token/${direct.guid}`,
        { token: signedIn.body.accessToken },
      );
      expect(asOwnerOnSecond.body.data).toEqual(paymentData);

      const refreshed = await call<AuthTokenResult>(second.baseUrl, 'POST', '/api/auth/v1/consumer/refresh', {
        body: { refreshToken: signedIn.body.refreshToken },
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.sessionGuid).toBe(signedIn.body.sessionGuid);

      const signedOut = await call(first.baseUrl, 'POST', '/api/auth/v1/consumer/sign-out', {
        token: refreshed.body.accessToken,
      });
      expect(signedOut.status).toBe(204);
      const afterSignOut = await call(second.baseUrl, 'POST', '/api/auth/v1/consumer/refresh', {
        body: { refreshToken: refreshed.body.refreshToken },
      });
      expect(afterSignOut.status).toBe(401);
    });

    it('a verification lock holds across both under 20 parallel wrong answers', async () => {
      const consumer = await createConsumer(first);
      const token = await createToken(first, consumer, 'Last4Ssn');
      const wrong = consumer.answers.last4Ssn === '0000' ? '1111' : '0000';
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          call(
            index % 2 === 0 ? first.baseUrl : second.baseUrl,
            'POST',
            '/api/auth/v1/consumer/sign-in/lookup',
            {
              body: { ...tenant, token: token.guid, last4Ssn: wrong },
            },
          ),
        ),
      );
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
      expect(answers.filter((answer) => answer.status === 403)).toHaveLength(15);

      for (const server of [first, second]) {
        const right = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
          body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn },
        });
        expect(right.status).toBe(403);
        expect(right.body).toMatchObject({ errorCode: 'UserLocked' });
      }
    });

    it('the per-IP failure limit counts failures on both instances together', async () => {
      const unknownGuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
      for (let i = 0; i < defaultFailureLimit; i += 1) {
        const server = i % 2 === 0 ? first : second;
        expect(
          (await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${unknownGuid}`)).status,
        ).toBe(404);
      }
      for (const server of [first, second]) {
        const refused = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
          body: { ...tenant, last4Ssn: '0000', postalCode: '00000', dateOfBirth: '1900-01-01' },
        });
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ errorCode: 'ToManyRequests' });
      }
    });

    it('a token-less burst from 60 addresses on both instances gets 5 guesses judged, then every answer alike', async () => {
      const consumer = await createConsumer(first);
      const { postalCode, dateOfBirth, last4Ssn } = consumer.answers;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, index) => {
          const guess = String(index).padStart(4, '0');
          return callFrom(
            loopbackAddress(index),
            (index % 2 === 0 ? first : second).baseUrl,
            'POST',
            lookupPath,
            {
              body: { ...tenant, postalCode, dateOfBirth, last4Ssn: guess === last4Ssn ? '9999' : guess },
            },
          );
        }),
      );
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
      expect(answers.filter((answer) => answer.status === 403)).toHaveLength(55);
      const right = await call(second.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, ...consumer.answers },
      });
      expect(right.status).toBe(403);
    });

    it('an MFA burst from 30 addresses on both instances gets 10 codes judged', async () => {
      const consumer = await createConsumer(first);
      const token = await createToken(first, consumer, 'Last4Ssn');
      const opened = await call<{ authToken: AuthTokenResult }>(first.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn },
      });
      expect(opened.status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          callFrom(
            loopbackAddress(index),
            (index % 2 === 0 ? first : second).baseUrl,
            'POST',
            '/api/auth/v1/consumer/sign-in/mfa?mfaCode=000000',
            { token: opened.body.authToken.accessToken },
          ),
        ),
      );
      // 000000 may be the mailed code; then one of the ten judged is the right one.
      const judged = answers.filter((answer) => answer.status === 409 || answer.status === 200);
      expect(judged).toHaveLength(10);
      expect(answers.filter((answer) => answer.status === 403)).toHaveLength(20);
    });

    it('a parallel burst from one address on both instances gets at most the per-IP budget judged', async () => {
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, index) =>
          call(
            index % 2 === 0 ? first.baseUrl : second.baseUrl,
            'POST',
            '/api/auth/v1/consumer/sign-in/identity-token',
            { body: { ...tenant, token: randomUUID() } },
          ),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 404)).toHaveLength(defaultFailureLimit);
      expect(statuses.filter((status) => status === 429)).toHaveLength(200 - defaultFailureLimit);
    });

    it('20 parallel reset requests for one user from 20 addresses on both instances make 3 mails', async () => {
      const mailsTo = async () =>
        (await first.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, 'customer@example.com')))
          .length;
      const requested = async () =>
        (
          await first.ctx.db
            .select()
            .from(auditLog)
            .where(eq(auditLog.event, 'customer.password.reset-request'))
        ).length;
      const [mailsBefore, requestedBefore] = [await mailsTo(), await requested()];
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          callFrom(
            loopbackAddress(400 + index),
            (index % 2 === 0 ? first : second).baseUrl,
            'POST',
            '/api/auth/v1/customer/password/reset',
            { body: { username: first.demo.customer.username } },
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(204));
      // Each request's audit row comes after its answer, once its mail is queued.
      while ((await requested()) < requestedBefore + 20)
        await new Promise((resolve) => setTimeout(resolve, 10));
      expect((await mailsTo()) - mailsBefore).toBe(3);
    });

    it('reset requests from one address on both instances spend its shared budget until 429', async () => {
      const address = loopbackAddress(450);
      const reset = (server: TestServer) =>
        callFrom(address, server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
          body: { username: 'nobody-by-this-name' },
        });
      for (let i = 0; i < defaultFailureLimit; i += 1)
        expect((await reset(i % 2 === 0 ? first : second)).status).toBe(204);
      expect((await reset(first)).status).toBe(429);
      expect((await reset(second)).status).toBe(429);
    });

    it('a staff lock counted on one instance refuses the right password on the other, which signed the user in before', async () => {
      const { username, password } = first.demo.admin;
      const signIn = (server: TestServer, attempt: string) =>
        call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', { body: { username, password: attempt } });
      // The first instance signs the admin in before the other counts the failures.
      for (let i = 0; i < 2; i += 1) expect((await signIn(first, password)).status).toBe(200);
      for (let i = 0; i < 10; i += 1) await signIn(second, 'a wrong guess on the other instance');
      const refused = await signIn(first, password);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ errorCode: 'UserLocked' });
      clock.advanceMinutes(16);
      expect((await signIn(first, password)).status).toBe(200);
    });
  },
);
