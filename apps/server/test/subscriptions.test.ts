import { randomUUID } from 'node:crypto';
import { type EmailSubscription, emailSubscriptionSchema } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscriptionLinks } from '../src/services/subscriptions.ts';
import { createSubscriptionToken, subscriptionTokenKey } from '../src/services/subscriptions-token.ts';
import { auditEvents } from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const lookupPath = (token: string) =>
  `/api/v1/communication/email/subscription/token/${encodeURIComponent(token)}`;
const updatePath = (query: Record<string, string>) =>
  `/api/v1/communication/email/subscription?${new URLSearchParams(query).toString()}`;
const oneClickPath = (token: string) =>
  `/api/v1/communication/email/unsubscribe?token=${encodeURIComponent(token)}`;

describe(`email subscriptions (${databaseLabel})`, () => {
  let server: TestServer;
  let tokenFor: (emailAddress: string, customerId?: number) => string;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
    const links = createSubscriptionLinks(server.config, server.ctx.subscriptionKey);
    tokenFor = (emailAddress, customerId = server.demo.tenant.customerId) =>
      links.tokenFor({ customerId, emailAddress });
  });
  afterAll(async () => {
    await server?.close();
  });

  const freshAddress = () => `person-${randomUUID()}@example.com`;

  it('reads the demo subscription by its token', async () => {
    const response = await call<EmailSubscription>(
      server.baseUrl,
      'GET',
      lookupPath(server.demo.emailSubscription.token),
    );
    expect(response.status).toBe(200);
    expect(emailSubscriptionSchema.parse(response.body).emailAddress).toBe(
      server.demo.emailSubscription.emailAddress,
    );
  });

  it('creates the record on first use, subscribed, with changedAt set then', async () => {
    const address = freshAddress();
    const createdAt = server.clock.now().toISOString();
    const first = await call<EmailSubscription>(server.baseUrl, 'GET', lookupPath(tokenFor(address)));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ emailAddress: address, unsubscribed: false, changedAt: createdAt });
    server.clock.advanceMinutes(5);
    const again = await call<EmailSubscription>(server.baseUrl, 'GET', lookupPath(tokenFor(address)));
    expect(again.body.changedAt).toBe(createdAt);
  });

  it('unsubscribes and resubscribes, moving changedAt only when the state changes, and audits each call', async () => {
    const address = freshAddress();
    const token = tokenFor(address);
    await call(server.baseUrl, 'GET', lookupPath(token));

    server.clock.advanceMinutes(1);
    const unsubscribedAt = server.clock.now().toISOString();
    const off = await call<EmailSubscription>(
      server.baseUrl,
      'POST',
      updatePath({ Token: token, EmailAddress: address, Unsubscribed: 'true' }),
    );
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ emailAddress: address, unsubscribed: true, changedAt: unsubscribedAt });

    server.clock.advanceMinutes(1);
    const offAgain = await call<EmailSubscription>(
      server.baseUrl,
      'POST',
      updatePath({ Token: token, Unsubscribed: 'true' }),
    );
    expect(offAgain.body).toEqual({ emailAddress: address, unsubscribed: true, changedAt: unsubscribedAt });

    server.clock.advanceMinutes(1);
    const on = await call<EmailSubscription>(
      server.baseUrl,
      'POST',
      updatePath({ Token: token, EmailAddress: address.toUpperCase(), Unsubscribed: 'false' }),
    );
    expect(on.body).toEqual({
      emailAddress: address,
      unsubscribed: false,
      changedAt: server.clock.now().toISOString(),
    });

    const audited = (await auditEvents(server, 'email.subscription.change')).filter(
      (row) => row.actor === `email:${address}`,
    );
    expect(audited.map((row) => [row.detail.unsubscribed, row.detail.changed])).toEqual([
      [true, true],
      [true, false],
      [false, true],
    ]);
  });

  it('creates the record on first use by an update', async () => {
    const address = freshAddress();
    const response = await call<EmailSubscription>(
      server.baseUrl,
      'POST',
      updatePath({ Token: tokenFor(address), Unsubscribed: 'true' }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      emailAddress: address,
      unsubscribed: true,
      changedAt: server.clock.now().toISOString(),
    });
  });

  describe('refuses with 401 NotAuthorized', () => {
    const genuineAddress = 'genuine@example.com';
    const forgedWithOtherKey = () =>
      createSubscriptionToken(subscriptionTokenKey('some-other-secret-value'), {
        customerId: 1001,
        emailAddress: genuineAddress,
      });
    const swappedPayload = () => {
      const [, signature] = tokenFor(genuineAddress).split('.');
      return `${Buffer.from('1001:victim@example.com').toString('base64url')}.${signature}`;
    };

    it.each([
      ['a token signed with another key', forgedWithOtherKey],
      ['a token whose address was swapped', swappedPayload],
      ['a token that is not one', () => 'garbage'],
    ])('%s, on lookup and update', async (_label, makeToken) => {
      const token = makeToken();
      const lookup = await call(server.baseUrl, 'GET', lookupPath(token));
      expect(lookup.status).toBe(401);
      expect(lookup.body).toMatchObject({ errorCode: 'NotAuthorized', errors: [] });
      const update = await call(server.baseUrl, 'POST', updatePath({ Token: token, Unsubscribed: 'true' }));
      expect(update.status).toBe(401);
      const oneClick = await call(server.baseUrl, 'POST', oneClickPath(token));
      expect(oneClick.status).toBe(401);
    });

    it("an EmailAddress that is not the token's, and changes nothing", async () => {
      const address = freshAddress();
      const token = tokenFor(address);
      const response = await call(
        server.baseUrl,
        'POST',
        updatePath({ Token: token, EmailAddress: 'someone-else@example.com', Unsubscribed: 'true' }),
      );
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ errorCode: 'NotAuthorized' });
      const after = await call<EmailSubscription>(server.baseUrl, 'GET', lookupPath(token));
      expect(after.body.unsubscribed).toBe(false);
    });
  });

  it('answers 404 ItemNotFound for a genuine token of a tenant that does not exist', async () => {
    const token = tokenFor(freshAddress(), 424_242);
    expect((await call(server.baseUrl, 'GET', lookupPath(token))).status).toBe(404);
    const update = await call(server.baseUrl, 'POST', updatePath({ Token: token, Unsubscribed: 'true' }));
    expect(update.status).toBe(404);
    expect(update.body).toMatchObject({ errorCode: 'ItemNotFound' });
  });

  it.each([
    ['Unsubscribed missing', { Token: 'x' }, 'Unsubscribed'],
    ['Unsubscribed not a boolean', { Token: 'x', Unsubscribed: 'maybe' }, 'Unsubscribed'],
    ['Token missing', { Unsubscribed: 'true' }, 'Token'],
    ['an unknown parameter', { Token: 'x', Unsubscribed: 'true', Extra: '1' }, 'Extra'],
  ])('answers 400 InvalidValue naming the field for %s', async (_label, query, field) => {
    const response = await call(server.baseUrl, 'POST', updatePath(query));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      errorCode: 'InvalidValue',
      errors: [expect.objectContaining({ field })],
    });
  });

  describe('RFC 8058 one-click unsubscribe', () => {
    it.each([
      ['a form body', { 'content-type': 'application/x-www-form-urlencoded' }, 'List-Unsubscribe=One-Click'],
      [
        'a multipart body',
        { 'content-type': 'multipart/form-data; boundary=b' },
        '--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n',
      ],
      ['no body', {}, undefined],
    ])('unsubscribes with %s', async (_label, headers, rawBody) => {
      const address = freshAddress();
      const response = await call<EmailSubscription>(
        server.baseUrl,
        'POST',
        oneClickPath(tokenFor(address)),
        {
          headers,
          ...(rawBody === undefined ? {} : { rawBody }),
        },
      );
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ emailAddress: address, unsubscribed: true });
      const after = await call<EmailSubscription>(server.baseUrl, 'GET', lookupPath(tokenFor(address)));
      expect(after.body.unsubscribed).toBe(true);
    });

    it('answers 400 without a token', async () => {
      const response = await call(server.baseUrl, 'POST', '/api/v1/communication/email/unsubscribe', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: 'List-Unsubscribe=One-Click',
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ errorCode: 'InvalidValue', errors: [{ field: 'token' }] });
    });
  });

  it('builds mail links to the preferences page and the one-click call on the tenant host', () => {
    const links = createSubscriptionLinks(server.config, server.ctx.subscriptionKey);
    const subject = { customerId: 1001, emailAddress: 'pat@example.com' };
    const token = encodeURIComponent(links.tokenFor(subject));
    expect(links.unsubscribeLinksFor({ subdomain: 'sender' }, subject)).toEqual({
      pageUrl: `http://sender.localhost:8080/unsubscribe?token=${token}`,
      oneClickUrl: `http://sender.localhost:8080/api/v1/communication/email/unsubscribe?token=${token}`,
    });
  });
});
