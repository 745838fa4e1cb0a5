import { describe, expect, it } from 'vitest';
import { ClientGoneError } from '../src/client-gone.ts';
import { HashThreads } from '../src/services/hash-threads.ts';
import { hashPassword, verifyPassword } from '../src/services/passwords.ts';

/** Small parameters: these tests are about the threads, not the hash's cost. */
const cheap = { algorithm: 2, memoryCost: 1024, timeCost: 1, parallelism: 1 } as const;

describe('password hashes on threads of their own', () => {
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

  it("rejects a job the library refuses with the library's message", async () => {
    const threads = new HashThreads(1);
    await expect(threads.verify('$argon2id$broken', 'x')).rejects.toThrow(/\S/);
    // The thread survives a refused job and takes the next one.
    const stored = await threads.hash('after the refusal', cheap);
    await expect(threads.verify(stored, 'after the refusal')).resolves.toBe(true);
    expect(threads.started).toBe(1);
  });

  it('starts one thread for one job at a time and never more than its limit', async () => {
    const threads = new HashThreads(2);
    for (const password of ['one', 'two', 'three']) {
      await threads.hash(password, cheap);
    }
    expect(threads.started).toBe(1);

    const passwords = Array.from({ length: 8 }, (_, index) => `password ${index}`);
    const hashes = await Promise.all(passwords.map((password) => threads.hash(password, cheap)));
    expect(threads.started).toBe(2);
    // Every answer reaches the job that asked for it.
    const checks = await Promise.all(
      hashes.map((stored, index) => threads.verify(stored, passwords[index] ?? '')),
    );
    expect(checks).toEqual(passwords.map(() => true));
    const crossed = await threads.verify(hashes[0] ?? '', 'password 1');
    expect(crossed).toBe(false);
  });

  it('holds four jobs a thread and queues the rest, dropping those whose caller has gone', async () => {
    const threads = new HashThreads(1);
    const stored = await threads.hash('queued checks', cheap);
    let gone = false;
    const held = Array.from({ length: 4 }, () => threads.verify(stored, 'queued checks'));
    const abandoned = threads.verify(stored, 'queued checks', () => gone);
    const last = threads.verify(stored, 'queued checks', () => false);
    expect(threads.queue).toEqual({ waiting: 2, held: 4 });
    gone = true;
    await expect(abandoned).rejects.toBeInstanceOf(ClientGoneError);
    await expect(Promise.all([...held, last])).resolves.toEqual([true, true, true, true, true]);
    expect(threads.queue).toEqual({ waiting: 0, held: 0 });
  });

  it('answers the jobs it finds waiting two at a time, in one message, each with its own answer', async () => {
    const threads = new HashThreads(1);
    const stored = await threads.hash('paired checks', cheap);
    // Answers that come in one message settle in one turn of this thread's event loop.
    let turnsWithAnswers = 0;
    let inTurn = false;
    const answered = () => {
      if (inTurn) return;
      inTurn = true;
      turnsWithAnswers += 1;
      setImmediate(() => {
        inTurn = false;
      });
    };
    // At least two of the four wait while the thread runs another, whatever the first it gets.
    const checks = ['paired checks', 'not it', 'paired checks', 'not it either'].map((password) =>
      threads.verify(stored, password).finally(answered),
    );
    await expect(Promise.all(checks)).resolves.toEqual([true, false, true, false]);
    expect(turnsWithAnswers).toBeLessThan(4);
  });
});
