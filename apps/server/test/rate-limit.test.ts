import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/api-error.ts';
import type { Clock } from '../src/config.ts';
import { handleError } from '../src/errors.ts';
import {
  type FailureCountStore,
  failureWindowMs,
  installFailureLimiter,
  MemoryFailureCountStore,
  RedisFailureCountStore,
  retryAfterSeconds,
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
  it('keeps units per key over a sliding 10-minute window, and takes back what is given back', async () => {
    const store = makeStore(`test:${randomUUID()}:`);
    const start = new Date(
      Math.floor(Date.parse('2025-01-01T00:00:00Z') / failureWindowMs) * failureWindowMs,
    );
    for (let i = 1; i <= 5; i += 1) {
      expect(await store.take('10.0.0.1', start)).toMatchObject({ current: i, previous: 0 });
    }
    const other = await store.take('10.0.0.2', start);
    await store.giveBack('10.0.0.1', other.window);
    expect(await store.count('10.0.0.1', start)).toBe(4);
    expect(await store.count('10.0.0.2', start)).toBe(1);

    const halfIntoNext = new Date(start.getTime() + failureWindowMs * 1.5);
    expect(await store.count('10.0.0.1', halfIntoNext)).toBe(2);
    expect(await store.take('10.0.0.1', halfIntoNext)).toMatchObject({ current: 1, previous: 4 });
    expect(await store.count('10.0.0.1', new Date(start.getTime() + failureWindowMs * 3))).toBe(0);
  });

  it('gives every unit of a parallel burst a number of its own', async () => {
    const store = makeStore(`test:${randomUUID()}:`);
    const now = new Date('2025-01-01T00:03:00Z');
    const units = await Promise.all(Array.from({ length: 50 }, () => store.take('10.0.0.3', now)));
    expect(units.map((unit) => unit.current).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });
});

describe('retryAfterSeconds', () => {
  const windowStart = new Date(
    Math.floor(Date.parse('2025-01-01T00:00:00Z') / failureWindowMs) * failureWindowMs,
  );
  it('waits for the next window when the current one is full', () => {
    const now = new Date(windowStart.getTime() + failureWindowMs / 4);
    // 30 kept in this window: the next fits once the window has passed and 1/30 of it has faded.
    const seconds = retryAfterSeconds({ window: 0, current: 31, previous: 0 }, 30, now);
    expect(seconds).toBe(Math.ceil((0.75 * failureWindowMs + failureWindowMs / 30) / 1000));
  });
  it('waits for the previous window to fade when it holds the budget', () => {
    const now = new Date(windowStart.getTime() + failureWindowMs / 10);
    const seconds = retryAfterSeconds({ window: 0, current: 1, previous: 30 }, 30, now);
    // With 30 kept in the window before, one more fits once 1/30 of it has faded: long past here.
    expect(seconds).toBe(1);
    const early = new Date(windowStart.getTime() + 1000);
    expect(retryAfterSeconds({ window: 0, current: 1, previous: 30 }, 30, early)).toBe(
      Math.ceil((failureWindowMs / 30 - 1000) / 1000),
    );
  });
});

describe('installFailureLimiter over HTTP', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  let judged = 0;

  async function serve(
    limit: number,
    clock: Clock,
    store: FailureCountStore = new MemoryFailureCountStore(),
  ) {
    const instance = Fastify();
    instance.setErrorHandler(handleError);
    installFailureLimiter(instance, { store, limit, clock });
    instance.post('/attempt', { config: { failureLimited: true } }, async (request) => {
      judged += 1;
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

  it('judges at most the budget of a parallel burst, and says when to try again', async () => {
    judged = 0;
    const base = await serve(30, new TestClock());
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => fetch(`${base}/attempt`, { method: 'POST' })),
    );
    expect(judged).toBe(30);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 409)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(170);
    const refused = answers.find((answer) => answer.status === 429);
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers at most the budget of failing reads in a parallel burst', async () => {
    const base = await serve(30, new TestClock());
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => fetch(`${base}/read/unknown-${i}`)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 404)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(170);
  });

  it('gives back the unit of an attempt that succeeded', async () => {
    judged = 0;
    const base = await serve(3, new TestClock());
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${base}/attempt?ok=yes`, { method: 'POST' })),
    );
    expect(answers.map((answer) => answer.status)).toContain(200);
    for (let i = 0; i < 3; i += 1)
      expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(409);
    expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(429);
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
      take: () => Promise.reject(new Error('down')),
      giveBack: () => Promise.reject(new Error('down')),
      count: () => Promise.reject(new Error('down')),
    };
    const base = await serve(1, new TestClock(), broken);
    expect((await fetch(`${base}/attempt`, { method: 'POST' })).status).toBe(409);
    expect((await fetch(`${base}/attempt?ok=yes`, { method: 'POST' })).status).toBe(200);
  });
});
