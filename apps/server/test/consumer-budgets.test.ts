import type { AuthTokenResult } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answers, auditEvents, createConsumer, createTenant, createToken } from './consumer-fixtures.ts';
import {
  call,
  callFrom,
  databaseLabel,
  type JsonResponse,
  loopbackAddress,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

/**
 * The consumers' attempt budgets under parallel bursts from many addresses: token-less
 * verification per ZIP code and date of birth, the MFA step per consumer, and the code mails per
 * consumer and hour. Each burst must get exactly the budget judged.
 */

const lookupPath = '/api/auth/v1/consumer/sign-in/lookup';
const mfaPath = (code: string) => `/api/auth/v1/consumer/sign-in/mfa?mfaCode=${code}`;
const resendPath = '/api/auth/v1/consumer/sign-in/mfa/resend';

describe(`consumer attempt budgets under parallel bursts (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '100000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const tenant = { customerId: 1001, subdomain: 'sender' };
  const statusesOf = (answers: JsonResponse[]) => answers.map((answer) => answer.status);
  const countOf = (answers: JsonResponse[], status: number) =>
    answers.filter((answer) => answer.status === status).length;

  const lastFourOtherThan = (answers: Answers, index: number) => {
    const guess = String(index).padStart(4, '0');
    return guess === answers.last4Ssn ? '9999' : guess;
  };

  async function codesMailedTo(to: string): Promise<string[]> {
    await server.ctx.mail.idle();
    return server.mailer.sent
      .filter((sent) => sent.to === to)
      .map((sent) => /\b(\d{6})\b/.exec(sent.text)?.[1] ?? '');
  }

  describe('token-less verification', () => {
    it('judges 5 of 60 parallel guesses of one ZIP code and date of birth from 60 addresses, then answers every triple alike', async () => {
      const consumer = await createConsumer(server);
      const { postalCode, dateOfBirth } = consumer.answers;
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, index) =>
          callFrom(loopbackAddress(index), server.baseUrl, 'POST', lookupPath, {
            body: {
              ...tenant,
              postalCode,
              dateOfBirth,
              last4Ssn: lastFourOtherThan(consumer.answers, index),
            },
          }),
        ),
      );
      expect(countOf(answers, 409)).toBe(5);
      expect(countOf(answers, 403)).toBe(55);

      const right = await callFrom(loopbackAddress(100), server.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, ...consumer.answers },
      });
      const wrong = await callFrom(loopbackAddress(101), server.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, postalCode, dateOfBirth, last4Ssn: lastFourOtherThan(consumer.answers, 7) },
      });
      expect(right.status).toBe(403);
      expect(right.body).toEqual(wrong.body);
      expect(right.body).toMatchObject({ errorCode: 'UserLocked' });
      expect(Number(right.headers.get('retry-after'))).toBe(15 * 60);

      server.clock.advanceMinutes(15);
      const afterLock = await call(server.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, ...consumer.answers },
      });
      expect(afterLock.status).toBe(200);
    });

    it('counts an ambiguous match as a failure, and says nothing more while locked', async () => {
      const shared = (await createConsumer(server)).answers;
      await createConsumer(server, { answers: shared });
      for (let i = 0; i < 5; i += 1) {
        const answer = await call(server.baseUrl, 'POST', lookupPath, { body: { ...tenant, ...shared } });
        expect(answer.status).toBe(409);
        expect(answer.body).toMatchObject({ errorCode: 'Ambiguous' });
      }
      const locked = await call(server.baseUrl, 'POST', lookupPath, { body: { ...tenant, ...shared } });
      expect(locked.status).toBe(403);
      expect(locked.body).toMatchObject({ errorCode: 'UserLocked' });
    });

    it('always asks for the mailed code, even where the tenant does not require it', async () => {
      const noMfa = await createTenant(server, { mfaRequired: false });
      const consumer = await createConsumer(server, { tenantId: noMfa.id });
      const answer = await call<{ authToken: AuthTokenResult }>(server.baseUrl, 'POST', lookupPath, {
        body: { customerId: noMfa.id, subdomain: noMfa.subdomain, ...consumer.answers },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.authToken).toMatchObject({ accessType: 'MfaPending', hasRestrictedAccess: true });
      expect(await codesMailedTo(consumer.email ?? '')).toHaveLength(1);
    });
  });

  describe('the MFA step', () => {
    async function pendingSession(consumerEmail?: string) {
      const consumer = await createConsumer(
        server,
        consumerEmail === undefined ? {} : { email: consumerEmail },
      );
      const token = await createToken(server, consumer, 'Last4Ssn');
      const open = () =>
        call<{ authToken: AuthTokenResult }>(server.baseUrl, 'POST', lookupPath, {
          body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn },
        });
      const first = await open();
      expect(first.status).toBe(200);
      return { consumer, open, pending: first.body.authToken };
    }
    const wrongCode = (code: string | undefined) => (code === '000000' ? '111111' : '000000');

    it('judges 10 of 30 parallel wrong codes from 30 addresses, then refuses even the right code', async () => {
      const { consumer, pending } = await pendingSession();
      const [code] = await codesMailedTo(consumer.email ?? '');
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          callFrom(loopbackAddress(index), server.baseUrl, 'POST', mfaPath(wrongCode(code)), {
            token: pending.accessToken,
          }),
        ),
      );
      expect(countOf(answers, 409)).toBe(10);
      expect(countOf(answers, 403)).toBe(20);
      const right = await call(server.baseUrl, 'POST', mfaPath(code ?? ''), { token: pending.accessToken });
      expect(right.status).toBe(403);
      expect(right.body).toMatchObject({ errorCode: 'UserLocked' });
      expect(Number(right.headers.get('retry-after'))).toBe(15 * 60);
    });

    it("says the tries left after a wrong code: the code's own 5, or the consumer's 10, whichever is fewer", async () => {
      const { consumer, open, pending: first } = await pendingSession();
      const [firstCode] = await codesMailedTo(consumer.email ?? '');
      const triesLeft = [];
      for (let i = 0; i < 7; i += 1) {
        const answer = await call<{ triesLeft?: number }>(
          server.baseUrl,
          'POST',
          mfaPath(wrongCode(firstCode)),
          {
            token: first.accessToken,
          },
        );
        expect(answer.status).toBe(409);
        triesLeft.push(answer.body.triesLeft);
      }
      // The code's own tries end first; the tries past them still count toward the consumer's 10.
      expect(triesLeft).toEqual([4, 3, 2, 1, 0, 0, 0]);

      server.clock.advanceMinutes(1);
      const second = await open();
      expect(second.status).toBe(200);
      const code = (await codesMailedTo(consumer.email ?? '')).at(-1) ?? '';
      const wrongs = [];
      for (let i = 0; i < 3; i += 1) {
        wrongs.push(
          await call<{ triesLeft?: number; lockedUntil?: string }>(
            server.baseUrl,
            'POST',
            mfaPath(wrongCode(code)),
            { token: second.body.authToken.accessToken },
          ),
        );
      }
      // A new code has 5 tries, the consumer 3: the consumer's budget is the nearer end, then a lock.
      expect(wrongs.map((answer) => [answer.status, answer.body.triesLeft])).toEqual([
        [409, 2],
        [409, 1],
        [409, 0],
      ]);
      expect(wrongs[2]?.body.lockedUntil).toBe(
        new Date(server.clock.now().getTime() + 15 * 60_000).toISOString(),
      );
      expect(Number(wrongs[2]?.headers.get('retry-after'))).toBe(15 * 60);
    });

    it('counts wrong codes across the pending sessions of a new lookup, which ends the earlier one', async () => {
      const { consumer, open, pending: first } = await pendingSession();
      for (let i = 0; i < 5; i += 1) {
        expect(
          (await call(server.baseUrl, 'POST', mfaPath('000000'), { token: first.accessToken })).status,
        ).toBe(409);
      }
      server.clock.advanceMinutes(1);
      const second = await open();
      expect(second.status).toBe(200);
      const ended = await call(server.baseUrl, 'POST', mfaPath('000000'), { token: first.accessToken });
      expect(ended.status).toBe(401);
      expect(
        (await auditEvents(server, 'consumer.session.end')).filter(
          (entry) => entry.detail.sessionId === first.sessionGuid,
        ),
      ).toHaveLength(1);

      const codes = await codesMailedTo(consumer.email ?? '');
      const code = codes.at(-1) ?? '';
      const wrong = wrongCode(code);
      const answers = [];
      for (let i = 0; i < 5; i += 1) {
        answers.push(
          await call(server.baseUrl, 'POST', mfaPath(wrong), { token: second.body.authToken.accessToken }),
        );
      }
      expect(statusesOf(answers)).toEqual([409, 409, 409, 409, 409]);
      const right = await call(server.baseUrl, 'POST', mfaPath(code), {
        token: second.body.authToken.accessToken,
      });
      expect(right.status).toBe(403);
    });

    it('mails at most 5 codes an hour: 30 parallel lookups get 5 codes and 25 answers of 429 with Retry-After', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Last4Ssn');
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          callFrom(loopbackAddress(index), server.baseUrl, 'POST', lookupPath, {
            body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn },
          }),
        ),
      );
      expect(countOf(answers, 200)).toBe(5);
      expect(countOf(answers, 429)).toBe(25);
      const refused = answers.find((answer) => answer.status === 429);
      expect(refused?.body).toMatchObject({ errorCode: 'ToManyRequests' });
      expect(Number(refused?.headers.get('retry-after'))).toBe(60 * 60);
      expect(await codesMailedTo(consumer.email ?? '')).toHaveLength(5);

      server.clock.advanceMinutes(61);
      const later = await call(server.baseUrl, 'POST', lookupPath, {
        body: { ...tenant, token: token.guid, last4Ssn: consumer.answers.last4Ssn },
      });
      expect(later.status).toBe(200);
    });

    it('counts resends toward the 5 code mails of an hour', async () => {
      const { consumer, pending } = await pendingSession();
      for (let i = 0; i < 4; i += 1) {
        // A minute later the last code is long delivered: its send and its mark are done before the
        // clock moves past its lease.
        await server.ctx.mail.idle();
        server.clock.advanceMinutes(1);
        expect((await call(server.baseUrl, 'POST', resendPath, { token: pending.accessToken })).status).toBe(
          204,
        );
      }
      await server.ctx.mail.idle();
      server.clock.advanceMinutes(1);
      const refused = await call(server.baseUrl, 'POST', resendPath, { token: pending.accessToken });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBe(55 * 60);
      expect(await codesMailedTo(consumer.email ?? '')).toHaveLength(5);
    });
  });
});
