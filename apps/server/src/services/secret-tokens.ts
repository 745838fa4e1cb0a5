import { createHash, randomFillSync } from 'node:crypto';

/**
 * The secrets the server hands out as bearer values (refresh, reset and launch tokens) and the only
 * form in which it stores them.
 */

/** What is stored of a token: its SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const tokenBytes = 32;
const randomPool = Buffer.alloc(tokenBytes * 128);
let randomPoolOffset = randomPool.length;

/**
 * 32 random bytes, base64url, from a pool filled a few KiB at a time as Node's `randomUUID` does:
 * cheaper than `randomBytes` per token. A token's bytes are zeroed once handed out.
 */
export function randomToken(): string {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const end = randomPoolOffset + tokenBytes;
  const token = randomPool.toString('base64url', randomPoolOffset, end);
  randomPool.fill(0, randomPoolOffset, end);
  randomPoolOffset = end;
  return token;
}
