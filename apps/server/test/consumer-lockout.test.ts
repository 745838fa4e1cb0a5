import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditEvents,
  type ConsumerFixture,
  consumerRow,
  createConsumer,
  createToken,
  type TokenFixture,
  tokenRow,
} from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const lookupPath = '/api/auth/v1/consumer/sign-in/lookup';

describe(`verification lockout (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const attempt = (token: TokenFixture, last4Ssn: string) =>
    call(server.baseUrl, 'POST', lookupPath, {
      body: { customerId: 1001, subdomain: 'sender', token: token.guid, last4Ssn },
    });
  const wrongFor = (consumer: ConsumerFixture) => (consumer.answers.last4Ssn === '0000' ? '1111' : '0000');

  it('counts at most 5 of 20 parallel wrong answers, then refuses even the right one with 403 UserLocked', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    const answers = await Promise.all(Array.from({ length: 20 }, () => attempt(token, wrongFor(consumer))));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    expect(statuses.filter((status) => status === 403)).toHaveLength(15);
    expect(answers.find((answer) => answer.status === 403)?.body).toMatchObject({ errorCode: 'UserLocked' });

    const row = await tokenRow(server, token.guid);
    expect(row.lockLevel).toBe(1);
    expect(row.lockedUntil).toEqual(new Date(server.clock.now().getTime() + 15 * 60_000));
    expect((await consumerRow(server, consumer.id)).failedCount).toBe(5);

    const right = await attempt(token, consumer.answers.last4Ssn);
    expect(right.status).toBe(403);
    expect(right.body).toMatchObject({ errorCode: 'UserLocked' });

    const lockouts = (await auditEvents(server, 'consumer.verification.lockout')).filter(
      (entry) => entry.detail.identityToken === token.guid,
    );
    expect(lockouts).toMatchObject([{ outcome: 'locked', actor: `consumer:${consumer.id}` }]);
  });

  it('tells each wrong answer the tries left, the one that locks when the lock ends, and the link read too', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    for (const left of [4, 3, 2, 1]) {
      const wrong = await attempt(token, wrongFor(consumer));
      expect(wrong).toMatchObject({ status: 409, body: { errorCode: 'InvalidSignIn', triesLeft: left } });
      expect(wrong.body).not.toHaveProperty('lockedUntil');
    }
    const lockEnd = new Date(server.clock.now().getTime() + 15 * 60_000).toISOString();
    const locking = await attempt(token, wrongFor(consumer));
    expect(locking).toMatchObject({
      status: 409,
      body: {
        errorCode: 'InvalidSignIn',
        message: 'The information you entered does not match our records.',
        triesLeft: 0,
        lockedUntil: lockEnd,
      },
    });
    expect(locking.headers.get('retry-after')).toBe('900');

    const refused = await attempt(token, consumer.answers.last4Ssn);
    expect(refused).toMatchObject({ status: 403, body: { errorCode: 'UserLocked', lockedUntil: lockEnd } });
    expect(refused.headers.get('retry-after')).toBe('900');

    // A link opened again during the lock says so before anyone types.
    const read = () => call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token.guid}`);
    expect((await read()).body).toMatchObject({ lockedUntil: lockEnd });
    server.clock.advanceMinutes(15);
    expect((await read()).body).toMatchObject({ lockedUntil: null });
  });

  it("counts the tries left on the nearer of the link's budget and the consumer's across its links", async () => {
    const consumer = await createConsumer(server);
    const [first, second, third] = [
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
    ];
    for (let i = 0; i < 4; i += 1) await attempt(first, wrongFor(consumer));
    for (let i = 0; i < 4; i += 1) await attempt(second, wrongFor(consumer));
    // The third link has 4 tries of its own left, but the consumer only 1.
    expect((await attempt(third, wrongFor(consumer))).body).toMatchObject({ triesLeft: 1 });
    const lockEnd = new Date(server.clock.now().getTime() + 15 * 60_000).toISOString();
    expect((await attempt(third, wrongFor(consumer))).body).toMatchObject({
      triesLeft: 0,
      lockedUntil: lockEnd,
    });
    // Every link of the consumer reads as locked.
    const firstRead = await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${first.guid}`);
    expect(firstRead.body).toMatchObject({ lockedUntil: lockEnd });
  });

  it('unlocks after 15 minutes, and the next lock lasts twice as long', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    for (let i = 0; i < 5; i += 1) expect((await attempt(token, wrongFor(consumer))).status).toBe(409);
    server.clock.advanceMinutes(15);
    for (let i = 0; i < 5; i += 1) expect((await attempt(token, wrongFor(consumer))).status).toBe(409);
    server.clock.advanceMinutes(15);
    expect((await attempt(token, consumer.answers.last4Ssn)).status).toBe(403);
    server.clock.advanceMinutes(15);
    expect((await attempt(token, consumer.answers.last4Ssn)).status).toBe(200);
  });

  it('locks the consumer after 10 failures across its tokens, which locks its other tokens too', async () => {
    const consumer = await createConsumer(server);
    const [first, second, third] = [
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
    ];
    for (let i = 0; i < 5; i += 1) expect((await attempt(first, wrongFor(consumer))).status).toBe(409);
    for (let i = 0; i < 5; i += 1) expect((await attempt(second, wrongFor(consumer))).status).toBe(409);
    const row = await consumerRow(server, consumer.id);
    expect(row.lockedUntil).toEqual(new Date(server.clock.now().getTime() + 15 * 60_000));

    const untouched = await attempt(third, consumer.answers.last4Ssn);
    expect(untouched.status).toBe(403);
    expect(untouched.body).toMatchObject({ errorCode: 'UserLocked' });
    server.clock.advanceMinutes(15);
    expect((await attempt(third, consumer.answers.last4Ssn)).status).toBe(200);
  });

  it('a locked token does not lock another consumer', async () => {
    const victim = await createConsumer(server);
    const victimToken = await createToken(server, victim, 'Last4Ssn');
    const bystander = await createConsumer(server);
    const bystanderToken = await createToken(server, bystander, 'Last4Ssn');
    for (let i = 0; i < 5; i += 1) await attempt(victimToken, wrongFor(victim));
    expect((await attempt(victimToken, victim.answers.last4Ssn)).status).toBe(403);
    expect((await attempt(bystanderToken, bystander.answers.last4Ssn)).status).toBe(200);
  });

  it('a right answer ends the run of failures', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    for (let i = 0; i < 4; i += 1) expect((await attempt(token, wrongFor(consumer))).status).toBe(409);
    expect((await attempt(token, consumer.answers.last4Ssn)).status).toBe(200);
    for (let i = 0; i < 4; i += 1) expect((await attempt(token, wrongFor(consumer))).status).toBe(409);
    expect((await attempt(token, consumer.answers.last4Ssn)).status).toBe(200);
  });

  it("a right answer ends the consumer's run across its tokens, and one with no run to end changes nothing", async () => {
    const consumer = await createConsumer(server);
    const tokens = [
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
      await createToken(server, consumer, 'Last4Ssn'),
    ] as const;
    const failOn = async (token: TokenFixture, times: number) => {
      for (let i = 0; i < times; i += 1) expect((await attempt(token, wrongFor(consumer))).status).toBe(409);
    };
    await failOn(tokens[0], 4);
    await failOn(tokens[1], 4);
    expect((await attempt(tokens[2], consumer.answers.last4Ssn)).status).toBe(200);
    expect((await attempt(tokens[2], consumer.answers.last4Ssn)).status).toBe(200);
    // 8 failures before the success and 6 after: only the 6 count toward the consumer's 10.
    await failOn(tokens[2], 4);
    await failOn(tokens[3], 2);
    expect((await attempt(tokens[2], consumer.answers.last4Ssn)).status).toBe(200);
  });
});
