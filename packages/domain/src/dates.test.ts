import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dateOfBirthYears,
  dateOnlyFromParts,
  datePickerDays,
  datePickerMonths,
  datePickerTwoDigitYears,
  expandTwoDigitYear,
  formatDateOnly,
  parseDateOnly,
  parseIsoDate,
  parseTime,
  partOfDay,
} from './dates.ts';

describe('parseDateOnly and formatDateOnly', () => {
  it.each([
    ['2024-02-29', 2024, 1, 29],
    ['1980-04-15', 1980, 3, 15],
    ['2000-01-01', 2000, 0, 1],
    ['0099-12-31', 99, 11, 31],
  ])('%s is local midnight of that day', (text, year, monthIndex, day) => {
    const date = parseDateOnly(text);
    expect(date).not.toBeNull();
    expect([date?.getFullYear(), date?.getMonth(), date?.getDate(), date?.getHours()]).toEqual([
      year,
      monthIndex,
      day,
      0,
    ]);
    expect(date && formatDateOnly(date)).toBe(text);
  });

  it.each([
    ['2023-02-29'],
    ['2024-13-01'],
    ['2024-00-10'],
    ['2024-04-31'],
    ['2024-4-1'],
    ['24-04-01'],
    [''],
    ['x'],
  ])('rejects %j', (text) => {
    expect(parseDateOnly(text)).toBeNull();
  });

  it('formats the local calendar day, whatever the time of day', () => {
    expect(formatDateOnly(new Date(1999, 11, 31, 23, 59, 59))).toBe('1999-12-31');
    expect(formatDateOnly(new Date(2024, 0, 5, 0, 0, 0))).toBe('2024-01-05');
  });

  it('round-trips every local calendar date', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(1000, 0, 1), max: new Date(9999, 11, 31), noInvalidDate: true }),
        (date) => {
          const text = formatDateOnly(date);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(parseDateOnly(text)?.toDateString()).toBe(date.toDateString());
        },
      ),
    );
  });
});

describe('dateOnlyFromParts', () => {
  it.each([
    ['1980', '04', '15', '1980-04-15'],
    [1980, 4, 15, '1980-04-15'],
    ['2024', '02', '29', '2024-02-29'],
    ['2023', '02', '29', null],
    ['2023', '13', '01', null],
    ['', '01', '01', null],
    ['2023', '', '01', null],
    ['abc', '01', '01', null],
  ])('%j-%j-%j gives %j', (year, month, day, expected) => {
    expect(dateOnlyFromParts(year, month, day)).toBe(expected);
  });
});

describe('parseIsoDate', () => {
  it.each([
    ['2024-05-06T07:08:09Z', Date.UTC(2024, 4, 6, 7, 8, 9)],
    ['2024-05-06T07:08:09.123Z', Date.UTC(2024, 4, 6, 7, 8, 9, 123)],
    ['2024-05-06T07:08Z', Date.UTC(2024, 4, 6, 7, 8)],
    ['2024-05-06T07:08:09+02:00', Date.UTC(2024, 4, 6, 5, 8, 9)],
    ['2024-05-06', new Date(2024, 4, 6).getTime()],
  ])('accepts %s', (text, epochMs) => {
    expect(parseIsoDate(text)?.getTime()).toBe(epochMs);
  });

  it.each([
    ['2024-02-30T00:00:00Z'],
    ['2024-05-06T24:00:00Z'],
    ['2024-05-06T07:60:00Z'],
    ['2024-05-06 07:08:09Z'],
    ['2024-05-06T07:08:09'],
    ['06/05/2024'],
    ['2023-02-29'],
    ['yesterday'],
  ])('rejects %s', (text) => {
    expect(parseIsoDate(text)).toBeNull();
  });
});

describe('parseTime', () => {
  it.each([
    ['00:00', 0, 0, 0],
    ['9:05', 9, 5, 0],
    ['09.05', 9, 5, 0],
    ['23:59:59', 23, 59, 59],
    ['23.59.59', 23, 59, 59],
    ['1:30 PM', 13, 30, 0],
    ['1:30pm', 13, 30, 0],
    ['11:15:20 am', 11, 15, 20],
    ['12:00 AM', 0, 0, 0],
    ['12:00 PM', 12, 0, 0],
    ['13:00 PM', 13, 0, 0],
  ])('reads %j as %i:%i:%i', (text, hours, minutes, seconds) => {
    expect(parseTime(text)).toEqual({ hours, minutes, seconds });
  });

  it.each([
    ['24:00'],
    ['12:60'],
    ['12:30:60'],
    ['12'],
    ['12:3'],
    ['123:00'],
    ['12:30:'],
    ['12:30.15'],
    ['noon'],
    [''],
  ])('rejects %j', (text) => {
    expect(parseTime(text)).toBeNull();
  });

  it('accepts every hour 0-23 with every minute and second 0-59, and nothing beyond', () => {
    fc.assert(
      fc.property(fc.nat(30), fc.nat(70), fc.nat(70), (hours, minutes, seconds) => {
        const text = `${hours}:${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
        const valid = hours <= 23 && minutes <= 59 && seconds <= 59;
        expect(parseTime(text)).toEqual(valid ? { hours, minutes, seconds } : null);
      }),
    );
  });
});

describe('expandTwoDigitYear', () => {
  it.each([
    ['00', 2000],
    [5, 2005],
    ['59', 2059],
    ['60', 2060],
    ['61', 1961],
    [99, 1999],
  ])('%j is %i', (year, full) => {
    expect(expandTwoDigitYear(year)).toBe(full);
  });

  it.each([['100'], ['-1'], [''], ['ab'], [1.5]])('rejects %j', (year) => {
    expect(expandTwoDigitYear(year)).toBeNull();
  });
});

describe('partOfDay', () => {
  it.each([
    [0, 'morning'],
    [11, 'morning'],
    [12, 'afternoon'],
    [16, 'afternoon'],
    [17, 'evening'],
    [23, 'evening'],
  ])('hour %i is %s', (hour, part) => {
    expect(partOfDay(hour)).toBe(part);
    expect(partOfDay(new Date(2024, 0, 1, hour, 30))).toBe(part);
  });
});

describe('date picker option lists', () => {
  it('lists the months 01 to 12 and the days 01 to 31', () => {
    expect(datePickerMonths).toEqual([
      '01',
      '02',
      '03',
      '04',
      '05',
      '06',
      '07',
      '08',
      '09',
      '10',
      '11',
      '12',
    ]);
    expect(datePickerDays).toHaveLength(31);
    expect(datePickerDays[0]).toBe('01');
    expect(datePickerDays[8]).toBe('09');
    expect(datePickerDays[30]).toBe('31');
  });

  it.each([
    [2025, '25', '61', 65],
    [1999, '99', '61', 39],
    [2060, '60', '61', 100],
    [2075, '60', '61', 100],
  ])('in %i the two-digit years run from %s down to %s (%i years)', (year, first, last, count) => {
    const years = datePickerTwoDigitYears(new Date(year, 5, 1));
    expect(years[0]).toBe(first);
    expect(years.at(-1)).toBe(last);
    expect(years).toHaveLength(count);
    expect(new Set(years).size).toBe(count);
    for (const twoDigits of years) expect(String(expandTwoDigitYear(twoDigits))).toMatch(/^(19|20)\d\d$/);
  });

  it.each([
    [2025, 126],
    [1900, 1],
  ])('in %i the date-of-birth years run from this year down to 1900', (year, count) => {
    const years = dateOfBirthYears(new Date(year, 11, 31));
    expect(years[0]).toBe(String(year));
    expect(years.at(-1)).toBe('1900');
    expect(years).toHaveLength(count);
  });
});
