import { type AuthTokenResult, type ConsumerIdentityToken, consumerIdentityTokenSchema } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditEvents,
  createConsumer,
  createTenant,
  createToken,
  paymentData,
  tokenRow,
} from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const tokenPath = (token: string) => `/api/auth/v1/consumers/token/${encodeURIComponent(token)}`;

describe(`identity-token reads (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function signInDirect(guid: string): Promise<AuthTokenResult> {
    const response = await call<AuthTokenResult>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      {
        body: {
          token: guid,
          customerId: server.demo.tenant.customerId,
          subdomain: server.demo.tenant.subdomain,
        },
      },
    );
    expect(response.status).toBe(200);
    return response.body;
  }

  it('reads a token by guid without payment data for an anonymous reader', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Last4Ssn');
    const response = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(token.guid));
    expect(response.status).toBe(200);
    expect(consumerIdentityTokenSchema.parse(response.body)).toEqual({
      guid: token.guid,
      shortId: token.shortId,
      consumerId: consumer.consumerId,
      customerId: server.demo.tenant.customerId,
      source: 'Letter',
      createdAt: server.clock.now().toISOString(),
      expiresAt: expect.stringMatching(/Z$/),
      lastUsedAt: null,
      signInType: 'Last4Ssn',
      data: null,
      lockedUntil: null,
      language: null,
    });
  });

  it('reads a token by its short id, as a person types it from a letter', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'PostalCode');
    const shortId = token.shortId ?? '';
    for (const typed of [shortId, shortId.toLowerCase(), `${shortId.slice(0, 5)}-${shortId.slice(5)}`]) {
      const response = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(typed));
      expect(response.status).toBe(200);
      expect(response.body.guid).toBe(token.guid);
    }
  });

  it('issues no short id for Direct tokens', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Direct');
    const response = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(token.guid));
    expect(response.body).toMatchObject({ signInType: 'Direct', shortId: null });
  });

  it('still answers 200 for an expired token, so the guard can show the expired-link page', async () => {
    const response = await call<ConsumerIdentityToken>(
      server.baseUrl,
      'GET',
      tokenPath(server.demo.identityTokens.expired),
    );
    expect(response.status).toBe(200);
    expect(Date.parse(response.body.expiresAt)).toBeLessThan(server.clock.now().getTime());
  });

  it.each([
    ['an unknown guid', '0f8fad5b-d9cb-469f-a165-70867728950e'],
    ['an unknown short id', '0000000000'],
    ['something that is neither', 'not-a-token'],
  ])('answers 404 ItemNotFound for %s', async (_label, token) => {
    const response = await call(server.baseUrl, 'GET', tokenPath(token));
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ errorCode: 'ItemNotFound', errors: [] });
  });

  it.each([
    ['an oversized token', tokenPath('x'.repeat(65))],
    ['an addAction that is not a boolean', `${tokenPath('0000000000')}?addAction=yes`],
    ['an unknown query parameter', `${tokenPath('0000000000')}?other=1`],
  ])('answers 400 InvalidValue for %s', async (_label, urlPath) => {
    const response = await call(server.baseUrl, 'GET', urlPath);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errorCode: 'InvalidValue', errors: [expect.any(Object)] });
  });

  it("returns payment data only to the consumer's own full session", async () => {
    const owner = await createConsumer(server);
    const ownerDirect = await createToken(server, owner, 'Direct');
    const ownerLetter = await createToken(server, owner, 'DateOfBirth');
    const stranger = await createConsumer(server);
    const strangerDirect = await createToken(server, stranger, 'Direct');

    const ownSession = await signInDirect(ownerDirect.guid);
    const strangerSession = await signInDirect(strangerDirect.guid);

    const asOwner = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(ownerLetter.guid), {
      token: ownSession.accessToken,
    });
    expect(asOwner.body.data).toEqual(paymentData);
    const asOwnerVerify = await call<ConsumerIdentityToken>(
      server.baseUrl,
      'GET',
      `${tokenPath(ownerLetter.guid)}/verify`,
      { token: ownSession.accessToken },
    );
    expect(asOwnerVerify.body.data).toEqual(paymentData);

    for (const bearer of [strangerSession.accessToken, 'not-a-jwt', undefined]) {
      const response = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(ownerLetter.guid), {
        ...(bearer === undefined ? {} : { token: bearer }),
      });
      expect(response.status).toBe(200);
      expect(response.body.data).toBeNull();
    }
    // The answer without data is made once and kept with the cached token; the owner still gets theirs.
    const ownerAgain = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(ownerLetter.guid), {
      token: ownSession.accessToken,
    });
    expect(ownerAgain.body.data).toEqual(paymentData);
  });

  it('never writes on a read: lastUsedAt and the audit log stay as they were', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Direct');
    const before = (await auditEvents(server, 'consumer.link.opened')).length;
    await call(server.baseUrl, 'GET', tokenPath(token.guid));
    await call(server.baseUrl, 'GET', `${tokenPath(token.guid)}/verify`);
    await call(server.baseUrl, 'GET', `${tokenPath(token.guid)}?addAction=false`);
    expect((await tokenRow(server, token.guid)).lastUsedAt).toBeNull();
    expect(await auditEvents(server, 'consumer.link.opened')).toHaveLength(before);
  });

  it('records a link-opened event for addAction=true, after the answer', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'PostalCode');
    const response = await call(server.baseUrl, 'GET', `${tokenPath(token.guid)}?addAction=true`);
    expect(response.status).toBe(200);
    await vi.waitFor(async () => {
      const opened = (await auditEvents(server, 'consumer.link.opened')).filter(
        (row) => row.detail.identityToken === token.guid,
      );
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({
        outcome: 'success',
        actor: `consumer:${consumer.id}`,
        ip: '127.0.0.1',
      });
    });
    expect((await tokenRow(server, token.guid)).lastUsedAt).toBeNull();
  });

  describe('verify', () => {
    it('answers 200 for a valid token', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'None');
      const response = await call<ConsumerIdentityToken>(
        server.baseUrl,
        'GET',
        `${tokenPath(token.guid)}/verify`,
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ guid: token.guid, signInType: 'None', data: null });
    });

    it('answers 403 TokenExpired once the token has expired (the clock moved past it)', async () => {
      const consumer = await createConsumer(server);
      const token = await createToken(server, consumer, 'Last4Ssn', { validForMs: 60_000 });
      expect((await call(server.baseUrl, 'GET', `${tokenPath(token.guid)}/verify`)).status).toBe(200);
      server.clock.advance(60_000);
      const response = await call(server.baseUrl, 'GET', `${tokenPath(token.guid)}/verify`);
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ errorCode: 'TokenExpired' });
    });

    it.each([
      [
        'an unknown token',
        `${tokenPath('0f8fad5b-d9cb-469f-a165-70867728950e')}/verify`,
        404,
        'ItemNotFound',
      ],
      ['an oversized token', `${tokenPath('y'.repeat(100))}/verify`, 400, 'InvalidValue'],
      ['a query parameter', `${tokenPath('0000000000')}/verify?addAction=true`, 400, 'InvalidValue'],
    ])('answers %s with %i %s', async (_label, urlPath, status, errorCode) => {
      const response = await call(server.baseUrl, 'GET', urlPath);
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ errorCode, errors: expect.any(Array) });
    });
  });

  it("keeps a token to its own tenant's consumer ids", async () => {
    const tenant = await createTenant(server);
    const consumer = await createConsumer(server, { tenantId: tenant.id });
    const token = await createToken(server, consumer, 'Direct');
    const response = await call<ConsumerIdentityToken>(server.baseUrl, 'GET', tokenPath(token.guid));
    expect(response.body).toMatchObject({ customerId: tenant.id, consumerId: consumer.consumerId });
  });
});
