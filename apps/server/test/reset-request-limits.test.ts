import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, mailOutbox } from '../src/db/schema.ts';
import { auditEvents } from './consumer-fixtures.ts';
import {
  call,
  callFrom,
  databaseLabel,
  loopbackAddress,
  startTestServer,
  type TestServer,
} from './helpers/server.ts';

const failureLimit = 5;

describe(`password reset requests are limited per user and per address (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: String(failureLimit) } });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    // Every per-address window and every user's hour of reset mails lie behind the clock afterwards.
    server.clock.advanceMinutes(61);
  });

  const resetFrom = (address: string, kind: string, username: string) =>
    callFrom(address, server.baseUrl, 'POST', `/api/auth/v1/${kind}/password/reset`, { body: { username } });

  /** The reset requests audited so far: a request's audit row comes after its answer, once its mail is queued. */
  const auditedRequests = async (kind: string) =>
    (
      await server.ctx.db
        .select({ requests: count() })
        .from(auditLog)
        .where(eq(auditLog.event, `${kind}.password.reset-request`))
    )[0]?.requests ?? 0;

  /** Waits until `total` reset requests of `kind` are audited, then for their mails to go. */
  async function settled(kind: string, total: number): Promise<void> {
    while ((await auditedRequests(kind)) < total) await new Promise((resolve) => setTimeout(resolve, 10));
    await server.ctx.mail.idle();
  }

  const mailsTo = async (address: string) =>
    (await server.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.toAddress, address))).length;

  it('answers 40 requests for one admin from 40 addresses with 204 and makes 3 mails, the rest audited as limited', async () => {
    const before = await auditedRequests('admin');
    for (let index = 0; index < 40; index += 1) {
      const response = await resetFrom(loopbackAddress(index), 'admin', server.demo.admin.username);
      expect(response.status).toBe(204);
    }
    await settled('admin', before + 40);
    expect(await mailsTo('admin@example.com')).toBe(3);
    expect(server.mailer.sent.filter((mail) => mail.to === 'admin@example.com')).toHaveLength(3);
    const limited = (await auditEvents(server, 'admin.password.reset-request')).filter(
      (row) => row.detail.cause === 'reset mails per hour used up',
    );
    expect(limited).toHaveLength(37);
    expect(limited[0]).toMatchObject({ outcome: 'failure', actor: expect.stringMatching(/^admin:\d+$/) });

    // An hour after the first mail, a request makes a mail again.
    server.clock.advanceMinutes(61);
    expect((await resetFrom(loopbackAddress(41), 'admin', server.demo.admin.username)).status).toBe(204);
    await settled('admin', before + 41);
    expect(await mailsTo('admin@example.com')).toBe(4);
  });

  it('makes at most 3 mails of 20 parallel requests for one customer from 20 addresses', async () => {
    const before = await auditedRequests('customer');
    const mailsBefore = await mailsTo('customer@example.com');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        resetFrom(loopbackAddress(100 + index), 'customer', server.demo.customer.username),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(204));
    await settled('customer', before + 20);
    expect((await mailsTo('customer@example.com')) - mailsBefore).toBe(3);
  });

  it('counts every reset request against the address, for known and unknown users alike, up to 429', async () => {
    const address = loopbackAddress(200);
    for (let index = 0; index < failureLimit; index += 1) {
      const username = index % 2 === 0 ? `nobody-${index}` : server.demo.customer.username;
      expect((await resetFrom(address, 'customer', username)).status).toBe(204);
    }
    const refused = await resetFrom(address, 'admin', server.demo.admin.username);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ errorCode: 'ToManyRequests' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const signIn = await callFrom(address, server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    expect(signIn.status).toBe(429);
    // Another address keeps its own budget.
    const other = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/reset', {
      body: { username: 'nobody-else' },
    });
    expect(other.status).toBe(204);
  });
});
