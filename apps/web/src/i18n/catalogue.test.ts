import { describe, expect, it } from 'vitest';
import { english } from './en.ts';
import { es } from './es.ts';

/** Every key of a catalogue, as a path ("consumer.fields.last4Ssn.label"), with what kind of text it holds. */
function keysOf(value: unknown, path = ''): string[] {
  if (typeof value === 'string') return [`${path}: text`];
  if (typeof value === 'function') return [`${path}: text of ${value.length} values`];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) =>
    keysOf(inner, path === '' ? key : `${path}.${key}`),
  );
}

describe('the catalogues', () => {
  it('have the same keys in English and in Spanish, each a text of the same kind', () => {
    expect(keysOf(es)).toEqual(keysOf(english));
  });

  it('leave no Spanish text empty, nor the same as the English one', () => {
    const englishTexts = flatTexts(english);
    for (const [key, text] of Object.entries(flatTexts(es))) {
      expect(text.trim(), key).not.toBe('');
      expect(text, key).not.toBe(englishTexts[key]);
    }
  });
});

/** The plain texts of a catalogue (functions called with sample values), by key. */
function flatTexts(value: unknown, path = ''): Record<string, string> {
  if (typeof value === 'string') return { [path]: value };
  if (typeof value === 'function') {
    const text: unknown = value(...Array.from({ length: value.length }, () => 3));
    return { [path]: String(text) };
  }
  return Object.assign(
    {},
    ...Object.entries(value as Record<string, unknown>).map(([key, inner]) =>
      flatTexts(inner, path === '' ? key : `${path}.${key}`),
    ),
  );
}
