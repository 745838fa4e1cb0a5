import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../src/config.ts';
import { ApiError, handleError } from '../src/errors.ts';
import {
  type FailureCountStore,
  failureWindowMs,
  installFailureLimiter,
  MemoryFailureCountStore,
  RedisFailureCountStore,
} from '../src/services/rate-limit.ts';

const redisUrl = process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined;
if (redisUrl === undefined)
  console.info('Redis failure store tests skipped: set TEST_REDIS_URL to run them.');

class TestClock implements Clock {
  constructor(private time = Date.parse('2025-01-01T00:00:00Z')) {}
  now() {
    return new Date(this.time);
  }
  advance(ms: number) {
    this.time += ms;
  }
}

const redisClients: Redis[] = [];
afterAll(async () => {
  await Promise.all(redisClients.map((client) => client.quit()));
});

function redisStore(prefix: string) {
  const client = new Redis(redisUrl ?? '', { maxRetriesPerRequest: 1 });
  redisClients.push(client);
  return new RedisFailureCountStore(client, prefix);
}

const stores: [string, (prefix: string) => FailureCountStore][] = [
  ['memory', () => new MemoryFailureCountStore()],
];
if (redisUrl !== undefined) stores.push(['redis', redisStore]);

describe.each(stores)('%s failure store', (_name, makeStore) => {
  it('counts failures per key over a sliding 10-minute window', async () => {
    const store = makeStore(`test:${randomUUID()}:`);
    const start = new Date(
      Math.floor(Date.parse('2025-01-01T00:00:00Z') / failureWindowMs) * failureWindowMs,
    );
    for (let i = 0; i < 4; i += 1) await store.add('10.0.0.1', start);
    await store.add('10.0.0.2', start);
    expect(await store.count('10.0.0.1', start)).toBe(4);
    expect(await store.count('10.0.0.2', start)).toBe(1);

    const halfIntoNext = new Date(start.getTime() + failureWindowMs * 1.5);
    expect(await store.count('10.0.0.1', halfIntoNext)).toBe(2);
    expect(await store.count('10.0.0.1', new Date(start.getTime() + failureWindowMs * 2))).toBe(0);
  });
});

describe('installFailureLimiter over HTTP', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function serve(
    limit: number,
    clock: Clock,
    store: FailureCountStore = new MemoryFailureCountStore(),
  ) {
    const instance = Fastify();
    instance.setErrorHandler(handleError);
    installFailureLimiter(instance, { store, limit, clock });
    instance.post('/attempt', { config: { failureLimited: true } }, async (request) => {
      if ((request.query as { ok?: string }).ok !== 'yes') throw new ApiError(409, 'InvalidSignIn', 'wrong');
      return { ok: true };
    });
    instance.get('/read/:id', { config: { failureLimited: 'read' } }, async (request) => {
      if ((request.params as { id: string }).id !== 'known')
        throw new ApiError(404, 'ItemNotFound', 'unknown');
      return { id: 'known' };
    });
    instance.get('/open', async () => {
      throw new ApiError(404, 'ItemNotFound', 'unknown');
    });
    app = instance;
    const address = await instance.listen({ port: 0, host: '127.0.0.1' });
    return address;
  }

  it('answers 429 ToManyRequests with the error body after the limit of failures, and lets time heal it', async () => {
    const clock = new TestClock();
    const base = await serve(3, clock);
    for (let i = 0; i < 3; i += 1) {
      expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(409);
    }
    const refused = await fetch(`${base}/attempt?ok=yes`, { method: 'POST' });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      errorCode: 'ToManyRequests',
      message: expect.any(String),
      errors: [],
    });

    clock.advance(2 * failureWindowMs);
    expect((await fetch(`${base}/attempt?ok=yes`, { method: 'POST' })).status).toBe(200);
  });

  it('never limits successful reads, and refuses failing reads past the limit', async () => {
    const base = await serve(2, new TestClock());
    expect((await fetch(`${base}/read/unknown-1`)).status).toBe(404);
    expect((await fetch(`${base}/read/unknown-2`)).status).toBe(404);
    const refused = await fetch(`${base}/read/unknown-3`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ errorCode: 'ToManyRequests' });
    for (let i = 0; i < 5; i += 1) expect((await fetch(`${base}/read/known`)).status).toBe(200);
    expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(429);
  });

  it('does not count successes or routes that did not opt in', async () => {
    const base = await serve(2, new TestClock());
    for (let i = 0; i < 5; i += 1) {
      expect((await fetch(`${base}/attempt?ok=yes`, { method: 'POST' })).status).toBe(200);
      expect((await fetch(`${base}/open`)).status).toBe(404);
    }
    expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(409);
  });

  it('fails open when the store is unreachable', async () => {
    const broken: FailureCountStore = {
      add: () => Promise.reject(new Error('down')),
      count: () => Promise.reject(new Error('down')),
    };
    const base = await serve(1, new TestClock(), broken);
    expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(409);
    expect((await fetch(`${base}/attempt?ok=yes`, { method: 'POST' })).status).toBe(200);
  });
});
