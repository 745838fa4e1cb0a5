import { describe, expect, it } from 'vitest';
import { ClientGoneError } from '../src/client-gone.ts';
import { HashQueue, hashesAtOnce } from '../src/services/hash-queue.ts';
import { hashPassword, verifyPassword } from '../src/services/passwords.ts';

/** Small parameters: these tests are about the queue, not the hash's cost. */
const cheap = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

describe('password hashes, a few at once', () => {
  it('hashes with the product parameters and verifies the right password only', async () => {
    const stored = await hashPassword('a long passphrase nobody guesses');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    await expect(verifyPassword(stored, 'a long passphrase nobody guesses')).resolves.toBe(true);
    await expect(verifyPassword(stored, 'a long passphrase nobody guessed')).resolves.toBe(false);
  });

  it('answers false for an unknown user and for a stored hash it cannot read', async () => {
    await expect(verifyPassword(undefined, 'anything at all')).resolves.toBe(false);
    await expect(verifyPassword('not a PHC string', 'anything at all')).resolves.toBe(false);
  });

  it("rejects a job the library refuses with the library's message, and takes the next", async () => {
    const hashes = new HashQueue(1);
    await expect(hashes.verify('$argon2id$broken', 'x')).rejects.toThrow(/\S/);
    const stored = await hashes.hash('after the refusal', cheap);
    await expect(hashes.verify(stored, 'after the refusal')).resolves.toBe(true);
    expect(hashes.queue).toEqual({ waiting: 0, running: 0 });
  });

  it('runs no more than its limit at once and gives every answer to the job that asked', async () => {
    const hashes = new HashQueue(2);
    const passwords = Array.from({ length: 8 }, (_, index) => `password ${index}`);
    const hashed = Promise.all(passwords.map((password) => hashes.hash(password, cheap)));
    expect(hashes.queue).toEqual({ waiting: 6, running: 2 });
    const stored = await hashed;
    const checks = await Promise.all(
      stored.map((hash, index) => hashes.verify(hash, passwords[index] ?? '')),
    );
    expect(checks).toEqual(passwords.map(() => true));
    await expect(hashes.verify(stored[0] ?? '', 'password 1')).resolves.toBe(false);
  });

  it('drops a waiting check whose caller has gone, and runs the rest', async () => {
    const hashes = new HashQueue(1);
    const stored = await hashes.hash('queued checks', cheap);
    let gone = false;
    const running = hashes.verify(stored, 'queued checks');
    const abandoned = hashes.verify(stored, 'queued checks', () => gone);
    const last = hashes.verify(stored, 'queued checks', () => false);
    expect(hashes.queue).toEqual({ waiting: 2, running: 1 });
    gone = true;
    await expect(abandoned).rejects.toBeInstanceOf(ClientGoneError);
    await expect(Promise.all([running, last])).resolves.toEqual([true, true]);
    expect(hashes.queue).toEqual({ waiting: 0, running: 0 });
  });

  it("leaves one of libuv's threads to file reads and name lookups", () => {
    const before = process.env.UV_THREADPOOL_SIZE;
    try {
      process.env.UV_THREADPOOL_SIZE = '2';
      expect(hashesAtOnce()).toBe(1);
      process.env.UV_THREADPOOL_SIZE = '64';
      expect(hashesAtOnce()).toBeGreaterThanOrEqual(1);
      expect(hashesAtOnce()).toBeLessThanOrEqual(63);
    } finally {
      if (before === undefined) delete process.env.UV_THREADPOOL_SIZE;
      else process.env.UV_THREADPOOL_SIZE = before;
    }
  });
});
