import { describe, expect, it } from 'vitest';
import { lockEndInWords } from './lock-time.ts';

describe('lockEndInWords', () => {
  const now = new Date(2026, 10, 27, 15, 30);

  it.each([
    ['later today', new Date(2026, 10, 27, 15, 45), '3:45 PM'],
    ['this morning of tomorrow', new Date(2026, 10, 28, 9, 5), '9:05 AM tomorrow'],
    ['a day after tomorrow', new Date(2026, 10, 29, 0, 10), '12:10 AM on Nov 29'],
  ])('says a lock that ends %s as the clock time people read', (_, until, words) => {
    expect(lockEndInWords(until, now)).toBe(words);
  });
});
