import { debtCollectorDisclosure, languages } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { mailTexts } from '../src/services/mail-texts.ts';

/** A text of the catalogue as a reader sees it: functions called with sample values. */
const rendered = (text: unknown): string =>
  typeof text === 'function' ? String(text('123456', 10)) : String(text);

describe('the mail catalogues', () => {
  const english = Object.keys(mailTexts.en).sort();

  it.each(languages)('has every key of the English catalogue, and no other, in %s', (language) => {
    expect(Object.keys(mailTexts[language]).sort()).toEqual(english);
    for (const key of english) {
      expect(rendered(mailTexts[language][key as keyof typeof mailTexts.en]).trim()).not.toBe('');
    }
  });

  it('translates every text rather than copying the English one', () => {
    for (const key of english) {
      const name = key as keyof typeof mailTexts.en;
      expect(rendered(mailTexts.es[name])).not.toBe(rendered(mailTexts.en[name]));
    }
  });

  it('puts the code and its minutes into the code mail of each language', () => {
    for (const language of languages) {
      expect(mailTexts[language].codeText('123456', 10)).toMatch(/123456.*10/);
    }
  });

  it('has the debt-collector line in each language', () => {
    expect(Object.keys(debtCollectorDisclosure).sort()).toEqual([...languages].sort());
  });
});
