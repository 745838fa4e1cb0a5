import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsumer, createToken } from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const limit = 5;
const unknownGuid = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe(`per-IP failure limit over HTTP (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: String(limit) } });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    // Both counting windows lie behind the clock afterwards, so each test starts from zero.
    server.clock.advanceMinutes(20);
  });

  const tenant = { customerId: 1001, subdomain: 'sender' };
  const wrongLookup = () =>
    call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: { ...tenant, last4Ssn: '0000', postalCode: '00000', dateOfBirth: '1900-01-01' },
    });

  it(`answers 429 ToManyRequests with the error body after ${limit} failures, on every limited call`, async () => {
    for (let i = 0; i < limit; i += 1) expect((await wrongLookup()).status).toBe(409);
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Direct');

    const refused = [
      await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
        body: { ...tenant, ...consumer.answers },
      }),
      await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/identity-token', {
        body: { ...tenant, token: token.guid },
      }),
      await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/mfa?mfaCode=123456'),
      await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
        body: { username: server.demo.admin.username, password: server.demo.admin.password },
      }),
      await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${unknownGuid}`),
    ];
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(response.body).toEqual({ errorCode: 'ToManyRequests', message: expect.any(String), errors: [] });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }

    server.clock.advanceMinutes(20);
    const healed = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/identity-token', {
      body: { ...tenant, token: token.guid },
    });
    expect(healed.status).toBe(200);
  });

  it('judges at most the limit of a parallel burst of failing sign-ins, and says when to try again', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/identity-token', {
          body: { ...tenant, token: randomUUID() },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - limit);
    const refused = answers.find((answer) => answer.status === 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('never limits successful reads, even past the limit', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    for (let i = 0; i < limit; i += 1) expect((await wrongLookup()).status).toBe(409);
    for (let i = 0; i < 3 * limit; i += 1) {
      expect((await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token.guid}`)).status).toBe(
        200,
      );
      expect(
        (await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token.guid}/verify`)).status,
      ).toBe(200);
      expect((await call(server.baseUrl, 'GET', '/api/auth/v1/access/sender')).status).toBe(200);
    }
  });

  it('counts unknown-token lookups as failures', async () => {
    for (let i = 0; i < limit; i += 1) {
      expect((await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${unknownGuid}`)).status).toBe(
        404,
      );
    }
    const next = await call(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${unknownGuid}/verify`);
    expect(next.status).toBe(429);
    expect((await wrongLookup()).status).toBe(429);
  });

  it('does not count successful sign-ins', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Direct');
    for (let i = 0; i < 3 * limit; i += 1) {
      const response = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/identity-token', {
        body: { ...tenant, token: token.guid },
      });
      expect(response.status).toBe(200);
    }
    expect((await wrongLookup()).status).toBe(409);
  });
});
