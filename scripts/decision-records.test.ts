import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const decisions = path.resolve(import.meta.dirname, '../docs/decisions');
const records = readdirSync(decisions).filter((name) => /^\d{3}-.*\.md$/.test(name));
const index = readFileSync(path.join(decisions, 'README.md'), 'utf8');

describe('the decision records', () => {
  it('are each listed in docs/decisions/README.md, so a reader finds every one', () => {
    expect(records.filter((name) => !index.includes(`](${name})`))).toEqual([]);
  });

  it('each say their date and status, current or superseded by a record that exists', () => {
    const numbers = new Set(records.map((name) => name.slice(0, 3)));
    const unclear = records.filter((name) => {
      const status = readFileSync(path.join(decisions, name), 'utf8').match(/^Status: (.*)$/m)?.[1] ?? '';
      const superseding = status.match(/^Superseded by (\d{3})/)?.[1];
      const dated = /\d{4}-\d{2}-\d{2}/.test(status);
      return (
        !dated || (superseding === undefined ? !status.startsWith('current') : !numbers.has(superseding))
      );
    });
    expect(unclear).toEqual([]);
  });

  it('each stay under 300 words', () => {
    const long = records.filter(
      (name) => readFileSync(path.join(decisions, name), 'utf8').split(/\s+/).filter(Boolean).length >= 300,
    );
    expect(long).toEqual([]);
  });
});
