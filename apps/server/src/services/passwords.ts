import { ClientGoneError } from '../client-gone.ts';
import { refuse } from '../refusals.ts';
import { type Argon2Options, HashQueue } from './hash-queue.ts';

/** argon2id with the OWASP minimum (m=19456 KiB, t=2, p=1). */
const argon2Options: Argon2Options = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

const minimumPasswordLength = 12;
const minimumPasswordScore = 3;

const hashQueue = new HashQueue();

export function hashPassword(password: string): Promise<string> {
  return hashQueue.hash(password, argon2Options);
}

/** How many password checks and hashes wait for their turn, and how many run. */
export const passwordHashQueue = () => hashQueue.queue;

let dummyHash: Promise<string> | undefined;

/**
 * Checks a password against a stored hash. Without a stored hash (an unknown username) it checks
 * against a dummy hash, so the answer takes as long either way and does not reveal who exists.
 * When `callerGone` answers true before the check's turn comes, it rejects with a
 * `ClientGoneError` instead of answering: nothing was checked, so nothing may count.
 */
export async function verifyPassword(
  storedHash: string | undefined,
  password: string,
  callerGone?: () => boolean,
): Promise<boolean> {
  if (storedHash === undefined) {
    dummyHash ??= hashPassword('not a password anyone has: dummy for equal timing');
    await hashQueue.verify(await dummyHash, password, callerGone);
    return false;
  }
  try {
    return await hashQueue.verify(storedHash, password, callerGone);
  } catch (error) {
    if (error instanceof ClientGoneError) throw error;
    return false;
  }
}

/**
 * zxcvbn and its dictionaries, loaded at the first password change: they hold memory that a
 * server answering sign-ins has no use for.
 */
let passwordStrength:
  | Promise<{ check(password: string, userInputs: string[]): { score: number } }>
  | undefined;

function loadPasswordStrength() {
  passwordStrength ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')]).then(
    ([{ ZxcvbnFactory }, { adjacencyGraphs, dictionary }]) =>
      new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs }),
  );
  return passwordStrength;
}

/** Throws 400 WeakPassword unless the password is long enough and hard to guess; no composition rules. */
export async function assertStrongPassword(password: string, userInputs: string[] = []): Promise<void> {
  if (password.length < minimumPasswordLength) {
    throw refuse('passwordTooShort', minimumPasswordLength);
  }
  const zxcvbn = await loadPasswordStrength();
  if (zxcvbn.check(password, userInputs).score < minimumPasswordScore) {
    throw refuse('passwordTooGuessable');
  }
}
