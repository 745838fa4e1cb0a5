import type { AuthTokenResult, ConsumerIdentityToken } from '@entry/domain';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityTokens, tenants } from '../src/db/schema.ts';
import { readCacheTtlMs, TtlCache } from '../src/stores/read-cache.ts';
import { createConsumer, createToken } from './consumer-fixtures.ts';
import { call, databaseLabel, startTestServer, TestClock, type TestServer } from './helpers/server.ts';

describe('TtlCache', () => {
  function counted(value: string | null) {
    const loader = {
      calls: 0,
      load: async () => {
        loader.calls += 1;
        return value;
      },
    };
    return loader;
  }

  it('answers from memory until the time to live has passed, then loads again', async () => {
    const clock = new TestClock();
    const cache = new TtlCache<string>(clock);
    const loader = counted('tenant');
    expect(await cache.get('k', loader.load)).toBe('tenant');
    clock.advance(readCacheTtlMs - 1);
    expect(await cache.get('k', loader.load)).toBe('tenant');
    expect(loader.calls).toBe(1);
    clock.advance(1);
    expect(await cache.get('k', loader.load)).toBe('tenant');
    expect(loader.calls).toBe(2);
  });

  it('never keeps an answer that found nothing', async () => {
    const cache = new TtlCache<string>(new TestClock());
    const loader = counted(null);
    expect(await cache.get('k', loader.load)).toBeNull();
    expect(await cache.get('k', loader.load)).toBeNull();
    expect(loader.calls).toBe(2);
  });

  it.each([
    ['deleting its key', (cache: TtlCache<string>) => cache.delete(['k'])],
    ['clearing the cache', (cache: TtlCache<string>) => cache.clear()],
  ])('loads again at once after %s', async (_label, invalidate) => {
    const cache = new TtlCache<string>(new TestClock());
    const loader = counted('token');
    await cache.get('k', loader.load);
    invalidate(cache);
    await cache.get('k', loader.load);
    expect(loader.calls).toBe(2);
  });

  it('does not keep an answer loaded while an invalidation happened', async () => {
    const cache = new TtlCache<string>(new TestClock());
    let finishLoad: (value: string) => void = () => undefined;
    const slow = cache.get('k', () => new Promise<string>((resolve) => (finishLoad = resolve)));
    cache.delete(['k']);
    finishLoad('before the change');
    expect(await slow).toBe('before the change');
    const loader = counted('after the change');
    expect(await cache.get('k', loader.load)).toBe('after the change');
  });

  it('keeps at most its capacity, dropping the oldest entry first', async () => {
    const cache = new TtlCache<string>(new TestClock(), readCacheTtlMs, 2);
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => key);
    const loader = counted('a again');
    expect(await cache.get('a', loader.load)).toBe('a again');
    expect(await cache.get('c', loader.load)).toBe('c');
  });
});

describe(`cached reads over HTTP (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_FAILURES: '1000' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  const readToken = (token: string) =>
    call<ConsumerIdentityToken>(server.baseUrl, 'GET', `/api/auth/v1/consumers/token/${token}`);

  it('shows a sign-in made through this server on the very next read of its token', async () => {
    const consumer = await createConsumer(server);
    const direct = await createToken(server, consumer, 'Direct');
    expect((await readToken(direct.guid)).body.lastUsedAt).toBeNull();
    const signedIn = await call<AuthTokenResult>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/consumer/sign-in/identity-token',
      {
        body: {
          token: direct.guid,
          customerId: server.demo.tenant.customerId,
          subdomain: server.demo.tenant.subdomain,
        },
      },
    );
    expect(signedIn.status).toBe(200);
    expect((await readToken(direct.guid)).body.lastUsedAt).toBe(server.clock.now().toISOString());
  });

  it('shows a verification made through this server on the next read by short id', async () => {
    const consumer = await createConsumer(server);
    const letter = await createToken(server, consumer, 'PostalCode');
    const shortId = letter.shortId ?? '';
    expect((await readToken(shortId)).body.lastUsedAt).toBeNull();
    const verified = await call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: {
        token: shortId,
        customerId: server.demo.tenant.customerId,
        subdomain: server.demo.tenant.subdomain,
        postalCode: consumer.answers.postalCode,
      },
    });
    expect(verified.status).toBe(200);
    expect((await readToken(shortId)).body.lastUsedAt).toBe(server.clock.now().toISOString());
  });

  it('serves a token revoked by another process for at most the time to live', async () => {
    const consumer = await createConsumer(server);
    const direct = await createToken(server, consumer, 'Direct');
    expect((await readToken(direct.guid)).status).toBe(200);
    // Written without telling the cache, as an operator's CLI in another process would.
    await server.ctx.db
      .update(identityTokens)
      .set({ revokedAt: server.clock.now() })
      .where(eq(identityTokens.guid, direct.guid));
    server.clock.advance(readCacheTtlMs);
    expect((await readToken(direct.guid)).status).toBe(404);
  });

  it('finds a tenant created after an unknown subdomain was asked for', async () => {
    const path = '/api/auth/v1/access/cached-later';
    expect((await call(server.baseUrl, 'GET', path)).status).toBe(404);
    await server.ctx.db.insert(tenants).values({
      id: 4242,
      subdomain: 'cached-later',
      name: 'Cached Later',
      settings: { mfaRequired: true, maxPasswordAgeDays: null },
    });
    expect((await call(server.baseUrl, 'GET', path)).body).toMatchObject({ customerId: 4242 });
  });
});
