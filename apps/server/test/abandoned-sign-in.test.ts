import { connect } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staffUsers } from '../src/db/schema.ts';
import { HashQueue, hashesAtOnce } from '../src/services/hash-queue.ts';
import { passwordHashQueue, verifyPassword } from '../src/services/passwords.ts';
import { MemoryFailureCountStore } from '../src/services/rate-limit.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/** A hash far dearer than the product's, so that checking it keeps a turn busy for a while. */
const slowOptions = { algorithm: 2, memoryCost: 131_072, timeCost: 3, parallelism: 1 } as const;
const slowPassword = 'keeps a hashing turn busy';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Turns of the event loop until the sign-in's check waits in the queue behind the busy hashes. */
async function untilQueued(busy: Promise<unknown>): Promise<void> {
  let free = false;
  busy.finally(() => {
    free = true;
  });
  while (passwordHashQueue().waiting !== 1) {
    if (free) throw new Error('the hashes ended before the sign-in was queued');
    await nextTurn();
  }
}

describe(`a password sign-in whose client leaves while it waits for its turn to be hashed (${databaseLabel})`, () => {
  let server: TestServer;
  let slowHash: string;
  const wrongPassword = 'not the password at all';
  const failuresFromThisAddress = new MemoryFailureCountStore();
  const addressFailures = () => failuresFromThisAddress.count('127.0.0.1', server.clock.now());

  beforeAll(async () => {
    server = await startTestServer({ failureStore: failuresFromThisAddress });
    slowHash = await new HashQueue(1).hash(slowPassword, slowOptions);
  });
  afterAll(async () => {
    await server?.close();
  });

  const failedCount = async () => {
    const [user] = await server.ctx.db
      .select({ failedCount: staffUsers.failedCount })
      .from(staffUsers)
      .where(eq(staffUsers.username, server.demo.admin.username));
    return user?.failedCount;
  };

  /** Fills every hashing turn with slow checks; resolves when they are all done. */
  const occupyHashing = () =>
    Promise.all(Array.from({ length: hashesAtOnce() }, () => verifyPassword(slowHash, slowPassword)));

  /**
   * Sends a sign-in with the wrong password on a connection of its own while hashing is busy,
   * waits until its check is queued, then either closes the connection or reads the answer.
   */
  async function wrongPasswordWhileBusy(leave: boolean): Promise<string> {
    const busy = occupyHashing();
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    const body = JSON.stringify({ username: server.demo.admin.username, password: wrongPassword });
    socket.write(
      `POST /api/auth/v1/admin/sign-in HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await untilQueued(busy);
    if (leave) socket.destroy();
    await busy;
    await closed;
    // Whatever the sign-in started has ended once hashing is idle and its answer is out.
    while (passwordHashQueue().running + passwordHashQueue().waiting > 0) await nextTurn();
    return Buffer.concat(chunks).toString('utf8');
  }

  it('counts the wrong password when the client stays for the answer', async () => {
    const before = { user: await failedCount(), address: await addressFailures() };
    const answer = await wrongPasswordWhileBusy(false);
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(await failedCount()).toBe((before.user ?? 0) + 1);
    expect(await addressFailures()).toBe(before.address + 1);
  });

  it('never checks the password once the client has gone: no failure counts toward either lock', async () => {
    const before = { user: await failedCount(), address: await addressFailures() };
    await wrongPasswordWhileBusy(true);
    // The next attempt, answered, is the only one that counts.
    const next = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: wrongPassword },
    });
    expect(next.status).toBe(401);
    expect(await failedCount()).toBe((before.user ?? 0) + 1);
    expect(await addressFailures()).toBe(before.address + 1);

    const signIn = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    expect(signIn.status).toBe(200);
  });
});
