import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';
import { ApiError } from '../errors.ts';

/** argon2id with the OWASP minimum (m=19456 KiB, t=2, p=1): about 10 ms per hash here. */
const argon2Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const minimumPasswordLength = 12;
export const minimumPasswordScore = 3;

export const passwordMessages = {
  tooShort: `The new password must be at least ${minimumPasswordLength} characters long.`,
  tooGuessable:
    'The new password is too easy to guess. Use a longer one, for example a few unrelated words; ' +
    'avoid names, dates, common words and keyboard patterns.',
} as const;

/** Runs at most `limit` tasks at once; the others wait their turn in order. */
export function concurrencyLimit(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active < limit) active += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next === undefined) active -= 1;
      else next();
    }
  };
}

/**
 * One hash per core at a time: more would not finish sooner, and each one in flight holds 19 MiB,
 * which the allocator keeps per worker thread (4 threads: about 80 MB more resident memory).
 */
const hashing = concurrencyLimit(availableParallelism());

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, argon2Options));
}

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a stored hash (an unknown username) it checks
 * against a dummy hash, so the answer takes as long either way and does not reveal who exists.
 */
export async function verifyPassword(storedHash: string | undefined, password: string): Promise<boolean> {
  if (storedHash === undefined) {
    dummyHash ??= hashPassword('not a password anyone has: dummy for equal timing');
    const dummy = await dummyHash;
    await hashing(() => verify(dummy, password));
    return false;
  }
  try {
    return await hashing(() => verify(storedHash, password));
  } catch {
    return false;
  }
}

const zxcvbn = new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });

/** Throws 400 WeakPassword unless the password is long enough and hard to guess; no composition rules. */
export function assertStrongPassword(password: string, userInputs: string[] = []): void {
  if (password.length < minimumPasswordLength) {
    throw new ApiError(400, 'WeakPassword', passwordMessages.tooShort, [
      { field: 'newPassword', message: passwordMessages.tooShort },
    ]);
  }
  if (zxcvbn.check(password, userInputs).score < minimumPasswordScore) {
    throw new ApiError(400, 'WeakPassword', passwordMessages.tooGuessable, [
      { field: 'newPassword', message: passwordMessages.tooGuessable },
    ]);
  }
}
