import { dateOfBirthFirstYear, partOfDayBoundaries, twoDigitYearPivot } from './constants.ts';

/** The date picker's value format: numeric year, two-digit month and day, separated by '-'. */
export const datePickerFormat = 'YYYY-MM-DD';

const dateOnlyPattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTimePattern =
  /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)$/;
const timePattern = /^(\d{1,2})([:.])(\d{2})(?:\2(\d{2}))?\s*([AaPp][Mm])?$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isValidCalendarDate(year: number, month: number, day: number): boolean {
  return (
    Number.isInteger(year) &&
    Number.isInteger(month) &&
    Number.isInteger(day) &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month)
  );
}

function pad(value: number, length: number): string {
  return String(value).padStart(length, '0');
}

function localDate(year: number, month: number, day: number): Date {
  const date = new Date(2000, month - 1, day);
  date.setFullYear(year);
  return date;
}

/** `YYYY-MM-DD` of a date's local calendar day, the format dates are sent in. */
export function formatDateOnly(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1, 2)}-${pad(date.getDate(), 2)}`;
}

/** A `YYYY-MM-DD` value as local midnight of that calendar day (no time-zone shift); null when invalid. */
export function parseDateOnly(text: string): Date | null {
  const match = dateOnlyPattern.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return isValidCalendarDate(year, month, day) ? localDate(year, month, day) : null;
}

/** The `YYYY-MM-DD` value of a year, month and day chosen in a date picker; null when not a real date. */
export function dateOnlyFromParts(
  year: string | number,
  month: string | number,
  day: string | number,
): string | null {
  const parts = [year, month, day].map(String);
  if (!parts.every((part) => /^\d{1,4}$/.test(part))) return null;
  const [y, m, d] = parts.map(Number) as [number, number, number];
  if (y < 1 || !isValidCalendarDate(y, m, d)) return null;
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/**
 * An ISO 8601 date (`YYYY-MM-DD`, a local calendar date) or date-time with `Z` or an offset (an
 * instant); null for anything else, including impossible dates such as 2023-02-29.
 */
export function parseIsoDate(text: string): Date | null {
  if (dateOnlyPattern.test(text)) return parseDateOnly(text);
  const match = isoDateTimePattern.exec(text);
  if (!match) return null;
  if (!isValidCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

export interface TimeOfDay {
  hours: number;
  minutes: number;
  seconds: number;
}

/**
 * A time `hh:mm` or `hh.mm`, optionally with seconds and AM/PM, as a 24-hour time; null when
 * invalid. Hours 0-23, minutes and seconds 0-59. With PM, hours below 12 move to the afternoon;
 * 12 AM is midnight.
 */
export function parseTime(text: string): TimeOfDay | null {
  const match = timePattern.exec(text.trim());
  if (!match) return null;
  const hours = Number(match[1]);
  const minutes = Number(match[3]);
  const seconds = match[4] === undefined ? 0 : Number(match[4]);
  if (hours > 23 || minutes > 59 || seconds > 59) return null;
  const meridiem = match[5]?.toUpperCase();
  if (meridiem === 'PM' && hours < 12) return { hours: hours + 12, minutes, seconds };
  if (meridiem === 'AM' && hours === 12) return { hours: 0, minutes, seconds };
  return { hours, minutes, seconds };
}

/** A two-digit year as a full year: above 60 is 19xx, the others 20xx. Null when not 0-99. */
export function expandTwoDigitYear(year: string | number): number | null {
  const text = String(year);
  if (!/^\d{1,2}$/.test(text)) return null;
  const twoDigits = Number(text);
  return twoDigits > twoDigitYearPivot ? 1900 + twoDigits : 2000 + twoDigits;
}

export type PartOfDay = 'morning' | 'afternoon' | 'evening';

/** Morning before 12, afternoon before 17, otherwise evening; a Date is read in local time. */
export function partOfDay(time: Date | number): PartOfDay {
  const hours = typeof time === 'number' ? time : time.getHours();
  if (hours < partOfDayBoundaries.morningEndsAtHour) return 'morning';
  if (hours < partOfDayBoundaries.afternoonEndsAtHour) return 'afternoon';
  return 'evening';
}

function twoDigitRange(from: number, to: number): readonly string[] {
  return Array.from({ length: to - from + 1 }, (_, index) => pad(from + index, 2));
}

/** The date picker's months, '01' to '12'. */
export const datePickerMonths: readonly string[] = twoDigitRange(1, 12);

/** The date picker's days, '01' to '31'. */
export const datePickerDays: readonly string[] = twoDigitRange(1, 31);

/**
 * The date picker's two-digit years up to this year, newest first: exactly those that the pivot
 * expands back to the year meant (1961 to 2060).
 */
export function datePickerTwoDigitYears(today: Date): readonly string[] {
  const years: string[] = [];
  const lastYear = Math.min(today.getFullYear(), 2000 + twoDigitYearPivot);
  for (let year = lastYear; year > 1900 + twoDigitYearPivot; year -= 1) {
    years.push(pad(year % 100, 2));
  }
  return years;
}

/** The date-of-birth year list: years 1900 to this year, newest first (docs/rules.md#date-of-birth). */
export function dateOfBirthYears(today: Date): readonly string[] {
  const years: string[] = [];
  for (let year = today.getFullYear(); year >= dateOfBirthFirstYear; year -= 1) {
    years.push(String(year));
  }
  return years;
}
