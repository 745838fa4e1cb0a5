import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/services/secret-tokens.ts';

describe('randomToken', () => {
  it('gives 32 fresh random bytes each time, past any number of pool refills', () => {
    const tokens = Array.from({ length: 1000 }, () => randomToken());
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const bytes = Buffer.from(token, 'base64url');
      expect(bytes).toHaveLength(32);
      // 32 zero bytes would mean a handed-out part of the pool came round again.
      expect(bytes.some((byte) => byte !== 0)).toBe(true);
    }
    // Across all tokens every byte value shows up: the bytes are spread, not a counter or a pattern.
    const seen = new Set(tokens.flatMap((token) => [...Buffer.from(token, 'base64url')]));
    expect(seen.size).toBe(256);
  });
});
