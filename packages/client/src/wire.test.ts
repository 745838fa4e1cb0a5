import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { reviveDates, toLocalDate } from './wire.ts';

describe('date revival', () => {
  const schema = z.object({
    at: z.iso.datetime(),
    birthday: z.iso.date(),
    subdomain: z.string(),
    history: z.array(z.object({ on: z.iso.date().nullable() })),
    later: z.iso.datetime().optional(),
  });

  it('turns declared date-times into instants and dates into local calendar days, and nothing else', () => {
    const revived = reviveDates(
      schema,
      schema.parse({
        at: '2025-03-30T01:30:00Z',
        birthday: '1980-04-15',
        subdomain: '2020-01-01',
        history: [{ on: '2024-12-31' }, { on: null }],
      }),
    );

    expect(revived).toEqual({
      at: new Date(Date.UTC(2025, 2, 30, 1, 30)),
      birthday: new Date(1980, 3, 15),
      subdomain: '2020-01-01',
      history: [{ on: new Date(2024, 11, 31) }, { on: null }],
    });
  });

  it.each(['1980-04-15', '2000-02-29', '2024-12-31', '0099-01-01'])(
    'keeps %s on its calendar day',
    (value) => {
      const date = toLocalDate(value);

      const [year, month, day] = value.split('-').map(Number);
      expect([date.getFullYear(), date.getMonth() + 1, date.getDate()]).toEqual([year, month, day]);
      expect([date.getHours(), date.getMinutes()]).toEqual([0, 0]);
    },
  );
});
