import type { core } from 'zod';
import { safeParse } from 'zod/v4/core';

/**
 * Reads a response body: validates it with the wire schema of `packages/domain`, then turns the
 * values the schema declares as ISO date-times into instants and as ISO dates into local calendar
 * dates (docs/rules.md#date-of-birth). Reviving by the schema rather than by the shape of every
 * string keeps a value such as a subdomain that happens to look like a date a string.
 */
export interface ResponseReader<T> {
  read(json: unknown): { ok: true; value: T } | { ok: false };
}

/**
 * A reader for a body without dates: its type is the schema's. Readers parse through zod's core
 * function rather than a schema method, so they work with `zod` and `zod/mini` schemas alike.
 */
export function plainReader<S extends core.$ZodType>(schema: S): ResponseReader<core.output<S>> {
  return {
    read(json) {
      const parsed = safeParse(schema, json);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
    },
  };
}

/**
 * A reader for a body with dates. `T` is the schema's type with its date strings as `Date`
 * (see `WithDates`); the date-revival tests pin the two together.
 */
export function datedReader<T>(schema: core.$ZodType): ResponseReader<T> {
  return {
    read(json) {
      const parsed = safeParse(schema, json);
      return parsed.success ? { ok: true, value: reviveDates(schema, parsed.data) as T } : { ok: false };
    },
  };
}

/** `T` with the keys `K` (ISO strings on the wire) as dates; nullable keys stay nullable. */
export type WithDates<T, K extends keyof T> = Omit<T, K> & {
  [P in K]: null extends T[P] ? Date | null : Date;
};

const isoDatePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight of a YYYY-MM-DD day in the local time zone, so a date of birth never shows as the day before. */
export function toLocalDate(value: string): Date {
  const match = isoDatePattern.exec(value);
  if (!match) return new Date(Number.NaN);
  const date = new Date(0);
  date.setFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  date.setHours(0, 0, 0, 0);
  return date;
}

export function reviveDates(schema: core.$ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const def = (schema as core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'string':
      if (typeof value !== 'string' || !('format' in def)) return value;
      if (def.format === 'datetime') return new Date(value);
      if (def.format === 'date') return toLocalDate(value);
      return value;
    case 'object': {
      if (typeof value !== 'object') return value;
      const revived: Record<string, unknown> = { ...value };
      for (const [key, field] of Object.entries(def.shape)) {
        if (key in revived) revived[key] = reviveDates(field, revived[key]);
      }
      return revived;
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => reviveDates(def.element, item)) : value;
    case 'nullable':
    case 'optional':
    case 'default':
    case 'readonly':
      return reviveDates(def.innerType, value);
    default:
      return value;
  }
}
