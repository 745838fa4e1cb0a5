import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './retry-after.ts';

const now = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('parseRetryAfter', () => {
  it.each([
    ['delay-seconds', '120', 120],
    ['zero seconds', '0', 0],
    ['delay-seconds with the spaces a header may keep around it', ' 90 ', 90],
    ['an IMF-fixdate', 'Wed, 15 Jan 2025 12:15:00 GMT', 900],
    ['an IMF-fixdate part way into a second, rounded up', 'Wed, 15 Jan 2025 12:00:01 GMT', 1],
    ['an IMF-fixdate in the past', 'Wed, 15 Jan 2025 11:00:00 GMT', 0],
    ['an IMF-fixdate whose weekday is wrong (the date decides)', 'Mon, 15 Jan 2025 13:00:00 GMT', 3600],
    ['an obsolete RFC 850 date', 'Wednesday, 15-Jan-25 12:01:00 GMT', 60],
    ['an obsolete asctime date with a one-digit day', 'Sat Feb  1 12:00:00 2025', 17 * 24 * 3600],
    ['an obsolete asctime date', 'Wed Jan 15 12:00:30 2025', 30],
  ])('reads %s', (_name, value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });

  it('reads a two-digit year more than fifty years ahead as a past year', () => {
    expect(parseRetryAfter('Thursday, 01-Jan-99 00:00:00 GMT', now)).toBe(0);
  });

  it.each([
    ['no header', null],
    ['an empty value', ''],
    ['a negative number', '-5'],
    ['a fraction', '1.5'],
    ['a number with a unit', '10s'],
    ['two values joined', '60, 120'],
    ['a number too large to count exactly', '99999999999999999999'],
    ['a date Date.parse would accept but HTTP does not', '2025-01-15T12:15:00Z'],
    ['a month and year', 'Jan 2025'],
    ['a date in another zone', 'Wed, 15 Jan 2025 12:15:00 CET'],
    ['a day that does not exist', 'Fri, 31 Feb 2025 12:00:00 GMT'],
    ['an hour that does not exist', 'Wed, 15 Jan 2025 24:00:00 GMT'],
    ['a lower-case month', 'Wed, 15 jan 2025 12:15:00 GMT'],
    ['words', 'later'],
  ])('ignores %s', (_name, value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
