import { describe, expect, it } from 'vitest';
import { concurrencyLimit } from '../src/services/passwords.ts';

describe('concurrencyLimit (password hashing one per core)', () => {
  it.each([1, 2, 3])('runs at most %i tasks at once, the rest in the order they came', async (limit) => {
    const run = concurrencyLimit(limit);
    let active = 0;
    let mostAtOnce = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = Array.from({ length: 6 }, (_, index) =>
      run(async () => {
        active += 1;
        mostAtOnce = Math.max(mostAtOnce, active);
        started.push(index);
        await new Promise<void>((resolve) => releases.push(resolve));
        active -= 1;
        return index;
      }),
    );
    while (started.length < tasks.length) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    for (const release of releases) release();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(mostAtOnce).toBe(limit);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('frees the slot of a task that fails', async () => {
    const run = concurrencyLimit(1);
    await expect(run(() => Promise.reject(new Error('hash failed')))).rejects.toThrow('hash failed');
    expect(await run(async () => 'next')).toBe('next');
  });
});
