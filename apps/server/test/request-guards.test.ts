import { createPrivateKey, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/index.ts';
import { linkOpenings } from '../src/db/schema.ts';
import { generateSigningKeyPem, rotateSigningKey } from '../src/services/keys.ts';
import { pruneExpiredRows } from '../src/services/retention.ts';
import { createSubscriptionLinks } from '../src/services/subscriptions.ts';
import { auditEvents, createConsumer, createToken } from './consumer-fixtures.ts';
import {
  call,
  createTestDatabase,
  databaseLabel,
  signInAdmin,
  startTestServer,
  TestClock,
  type TestDatabase,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';

/**
 * The edges of the attempt budgets (issue 27): only JSON on JSON calls, no cross-site state
 * changes, unknown key ids, the link-opened audit flood, the logged subscription address and the
 * failure limiter's Retry-After.
 */

const updatePath = (query: Record<string, string>) =>
  `/api/v1/communication/email/subscription?${new URLSearchParams(query).toString()}`;
const oneClickPath = (token: string) =>
  `/api/v1/communication/email/unsubscribe?token=${encodeURIComponent(token)}`;
const tokenPath = (token: string) => `/api/auth/v1/consumers/token/${encodeURIComponent(token)}`;
const freshAddress = () => `person-${randomUUID()}@example.com`;

/** A GET from another loopback address: each one is a client of its own, with no proxy to trust. */
function getFrom(localAddress: string, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

async function openingsOf(server: TestServer, guid: string) {
  return (await auditEvents(server, 'consumer.link.opened')).filter(
    (row) => row.detail.identityToken === guid,
  );
}

describe(`request guards (${databaseLabel})`, () => {
  let server: TestServer;
  let subscriptionToken: (emailAddress: string) => string;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '100000' } });
    const links = createSubscriptionLinks(server.config, server.ctx.subscriptionKey);
    subscriptionToken = (emailAddress) =>
      links.tokenFor({ customerId: server.demo.tenant.customerId, emailAddress });
  });
  afterAll(async () => {
    await server?.close();
  });

  const unsubscribe = (headers: Record<string, string> = {}, rawBody?: string) => {
    const address = freshAddress();
    return call(
      server.baseUrl,
      'POST',
      updatePath({ Token: subscriptionToken(address), Unsubscribed: 'true' }),
      {
        headers,
        ...(rawBody === undefined ? {} : { rawBody }),
      },
    );
  };

  describe('only JSON on JSON calls', () => {
    it.each([
      ['a form', 'application/x-www-form-urlencoded'],
      ['plain text', 'text/plain'],
      ['multipart', 'multipart/form-data; boundary=b'],
    ])('refuses a password sign-in sent as %s with 415 and the error body', async (_label, type) => {
      const { username, password } = server.demo.admin;
      const rawBody = type.startsWith('multipart')
        ? `--b\r\nContent-Disposition: form-data; name="username"\r\n\r\n${username}\r\n--b--\r\n`
        : new URLSearchParams({ username, password }).toString();
      const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
        headers: { 'content-type': type },
        rawBody,
      });
      expect(response.status).toBe(415);
      expect(response.body).toEqual({
        errorCode: 'InvalidValue',
        message: expect.any(String),
        errors: [{ field: 'body', message: expect.any(String) }],
      });
    });

    it('refuses a body other than JSON on the preferences call, and accepts a POST without a body', async () => {
      expect((await unsubscribe({ 'content-type': 'text/plain' }, 'x')).status).toBe(415);
      expect((await unsubscribe({ 'content-type': 'application/x-www-form-urlencoded' }, 'a=b')).status).toBe(
        415,
      );
      expect((await unsubscribe()).status).toBe(200);
      expect((await unsubscribe({ 'content-type': 'application/json' }, '')).status).toBe(200);
      expect((await unsubscribe({ 'content-type': 'application/json; charset=utf-8' }, '{}')).status).toBe(
        200,
      );
    });

    it('keeps the one-click unsubscribe form body', async () => {
      const response = await call(server.baseUrl, 'POST', oneClickPath(subscriptionToken(freshAddress())), {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: 'List-Unsubscribe=One-Click',
      });
      expect(response.status).toBe(200);
    });
  });

  describe('no state change from another site', () => {
    it.each([
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['a foreign Origin', { origin: 'https://attacker.example' }],
      ['an Origin on another port', { origin: 'http://localhost:9999' }],
      ['an Origin with another scheme', { origin: 'https://apps.localhost:8080' }],
      ['an Origin ending like a tenant host', { origin: 'http://sender.localhost:8080.attacker.example' }],
      ['an Origin two labels under the domain', { origin: 'http://a.sender.localhost:8080' }],
      ['an opaque Origin', { origin: 'null' }],
    ])('refuses %s with 403 NotPermitted', async (_label, headers) => {
      const response = await unsubscribe(headers);
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ errorCode: 'NotPermitted', message: expect.any(String), errors: [] });
    });

    it('refuses a cross-site password sign-in before checking the password', async () => {
      const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
        body: { username: server.demo.admin.username, password: server.demo.admin.password },
        headers: { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(response.status).toBe(403);
    });

    it.each([
      ['no Origin and no Sec-Fetch-Site (curl, a server)', {}],
      ['the apps host', { origin: 'http://apps.localhost:8080', 'sec-fetch-site': 'same-site' }],
      ['the bare domain', { origin: 'http://localhost:8080', 'sec-fetch-site': 'same-origin' }],
      ['a tenant host', { origin: 'http://Sender.localhost:8080', 'sec-fetch-site': 'same-site' }],
      ['Sec-Fetch-Site: none (typed by the person)', { 'sec-fetch-site': 'none' }],
    ])('accepts %s', async (_label, headers) => {
      expect((await unsubscribe(headers)).status).toBe(200);
    });

    it('lets mail providers post the one-click unsubscribe, and reads stay open', async () => {
      const crossSite = { origin: 'https://mail.example', 'sec-fetch-site': 'cross-site' };
      const oneClick = await call(server.baseUrl, 'POST', oneClickPath(subscriptionToken(freshAddress())), {
        headers: { ...crossSite, 'content-type': 'application/x-www-form-urlencoded' },
        rawBody: 'List-Unsubscribe=One-Click',
      });
      expect(oneClick.status).toBe(200);
      const read = await call(server.baseUrl, 'GET', '/api/auth/v1/access/sender', { headers: crossSite });
      expect(read.status).toBe(200);
    });

    it('lists 403, 413 and 415 among the answers of every state-changing call', async () => {
      const document = (await (await fetch(`${server.baseUrl}/api/docs/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      const signIn = document.paths['/api/auth/v1/admin/sign-in']?.post?.responses;
      expect(Object.keys(signIn ?? {})).toEqual(expect.arrayContaining(['403', '413', '415']));
      const oneClick = document.paths['/api/v1/communication/email/unsubscribe']?.post?.responses;
      expect(Object.keys(oneClick ?? {})).not.toContain('403');
    });
  });

  it('refuses a token of an unknown key id with 401, reading the keys at most once every 10 seconds', async () => {
    const admin = await signInAdmin(server);
    const claims = decodeJwt(admin.accessToken);
    const signWith = (pem: string, kid: string) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).sign(createPrivateKey(pem));
    const launch = (token: string) =>
      call(server.baseUrl, 'POST', '/api/auth/v1/launch/customer/1001', { token });

    server.clock.advance(11_000);
    const forged = await signWith(generateSigningKeyPem(), 'no-such-key');
    const burst = await Promise.all(Array.from({ length: 20 }, () => launch(forged)));
    for (const response of burst) {
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ errorCode: 'NotAuthorized', errors: [] });
    }

    // A key another instance added since: unknown here until the key table is read again.
    const pem = generateSigningKeyPem();
    const { kid } = await rotateSigningKey(server.ctx.db, server.clock.now(), pem);
    const signedWithNewKey = await signWith(pem, kid);
    expect((await launch(signedWithNewKey)).status).toBe(401);
    server.clock.advance(9_000);
    expect((await launch(signedWithNewKey)).status).toBe(401);
    server.clock.advance(1_000);
    expect((await launch(signedWithNewKey)).status).toBe(200);
  });

  it('records at most one link opening per link and client address per hour, after the answer', async () => {
    const consumer = await createConsumer(server);
    const token = await createToken(server, consumer, 'Direct');
    const url = `${server.baseUrl}${tokenPath(token.guid)}?addAction=true`;
    const burst = await Promise.all([
      ...Array.from({ length: 30 }, () => getFrom('127.0.0.1', url)),
      ...Array.from({ length: 10 }, () => getFrom('127.0.0.2', url)),
    ]);
    expect(burst.every((status) => status === 200)).toBe(true);

    // Written in order, one insert at a time: once a later address's row is there, the burst's are too.
    expect(await getFrom('127.0.0.3', url)).toBe(200);
    await vi.waitFor(async () => {
      expect((await openingsOf(server, token.guid)).map((row) => row.ip)).toContain('127.0.0.3');
    });
    const rows = await openingsOf(server, token.guid);
    expect(rows.map((row) => row.ip).sort()).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);

    server.clock.advanceMinutes(60);
    expect(await getFrom('127.0.0.1', url)).toBe(200);
    await vi.waitFor(async () => {
      expect(await openingsOf(server, token.guid)).toHaveLength(4);
    });
    server.clock.advanceMinutes(61);
    expect((await pruneExpiredRows(server.ctx.db, server.clock.now())).linkOpenings).toBeGreaterThanOrEqual(
      4,
    );
    expect(await server.ctx.db.select().from(linkOpenings)).toEqual([]);
  });
});

describe(`the failure limiter's 429 (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '2' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('says in Retry-After when one more attempt fits the sliding window again', async () => {
    // The clock starts on a window's first instant; four minutes in, six remain of it, and the
    // window after must be half over before its predecessor's two failures weigh only one.
    server.clock.advanceMinutes(4);
    const wrongLookup = () =>
      call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
        body: {
          customerId: 1001,
          subdomain: 'sender',
          last4Ssn: '0000',
          postalCode: '00000',
          dateOfBirth: '1900-01-01',
        },
      });
    expect((await wrongLookup()).status).toBe(409);
    expect((await wrongLookup()).status).toBe(409);

    const refused = await wrongLookup();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('660');

    server.clock.advance(90_500);
    const refusedRead = await call(server.baseUrl, 'GET', tokenPath(randomUUID()));
    expect(refusedRead.status).toBe(429);
    expect(refusedRead.headers.get('retry-after')).toBe('570');

    server.clock.advance(569_000);
    expect((await wrongLookup()).status).toBe(429);
    server.clock.advance(1_000);
    expect((await wrongLookup()).status).toBe(409);
  });
});

describe(`logged subscription addresses (${databaseLabel})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('redacts the EmailAddress of a logged request', async () => {
    const webDist = path.join(database.dataDir, 'web-dist');
    mkdirSync(webDist, { recursive: true });
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Entry</title>');
    const config = loadConfig(
      {
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl,
        AUTH_SIGNING_KEY: database.authSigningKey,
        KBA_PEPPER: database.pepper,
        WEB_DIST_DIR: webDist,
        LOG_LEVEL: 'info',
        MAIL_TRANSPORT: 'log',
      },
      new TestClock(),
    );
    const handle = await openDatabase(config);
    const logLines: string[] = [];
    const app = await buildApp(config, {
      database: handle,
      logStream: { write: (line) => logLines.push(line) },
    });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      if (address === null || typeof address === 'string') throw new Error('server has no port');
      const emailAddress = 'private.person@example.com';
      const token = createSubscriptionLinks(config, app.ctx.subscriptionKey).tokenFor({
        customerId: 1001,
        emailAddress,
      });
      const response = await call(
        `http://127.0.0.1:${address.port}`,
        'POST',
        updatePath({ Token: token, EmailAddress: emailAddress, Unsubscribed: 'true' }),
      );
      expect(response.status).toBeLessThan(500);
      const line = logLines.find((text) => text.includes('/api/v1/communication/email/subscription?'));
      expect(line).toBeDefined();
      expect(line).toContain('EmailAddress=[redacted]');
      expect(logLines.join('\n')).not.toMatch(/private\.person|private%2Eperson|example\.com/);
    } finally {
      await app.close();
      await handle.close();
    }
  });
});

describe.skipIf(testDatabaseUrl === undefined)('link openings on two instances of one PostgreSQL', () => {
  let database: TestDatabase;
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    const clock = new TestClock();
    first = await startTestServer({ sharedDatabase: database, clock });
    second = await startTestServer({ sharedDatabase: database, clock });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await database?.drop();
  });

  it('records one opening per link and address for a burst spread over both', async () => {
    const consumer = await createConsumer(first);
    const token = await createToken(first, consumer, 'Direct');
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        getFrom(
          '127.0.0.1',
          `${(index % 2 === 0 ? first : second).baseUrl}${tokenPath(token.guid)}?addAction=true`,
        ),
      ),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Each instance writes in order: once its later address's row is there, its burst's are too.
    expect(await getFrom('127.0.0.2', `${first.baseUrl}${tokenPath(token.guid)}?addAction=true`)).toBe(200);
    expect(await getFrom('127.0.0.3', `${second.baseUrl}${tokenPath(token.guid)}?addAction=true`)).toBe(200);
    await vi.waitFor(async () => {
      const addresses = (await openingsOf(first, token.guid)).map((row) => row.ip);
      expect(addresses).toEqual(expect.arrayContaining(['127.0.0.2', '127.0.0.3']));
    });
    const rows = await openingsOf(first, token.guid);
    expect(rows.map((row) => row.ip).sort()).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
  });
});
