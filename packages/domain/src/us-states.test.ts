import { describe, expect, it } from 'vitest';
import { findUsState, usStates } from './us-states.ts';

const nonStates = [
  ['District of Columbia', 'DC'],
  ['American Samoa', 'AS'],
  ['Federated States of Micronesia', 'FM'],
  ['Guam', 'GU'],
  ['Marshall Islands', 'MH'],
  ['Northern Mariana Islands', 'MP'],
  ['Palau', 'PW'],
  ['Puerto Rico', 'PR'],
  ['Virgin Islands', 'VI'],
] as const;

describe('usStates', () => {
  it('holds the 50 states, DC and the eight territories: 59 entries', () => {
    expect(usStates).toHaveLength(59);
  });

  it('has unique names and two-letter upper-case abbreviations', () => {
    expect(new Set(usStates.map((state) => state.name)).size).toBe(59);
    expect(new Set(usStates.map((state) => state.abbreviation)).size).toBe(59);
    for (const state of usStates) expect(state.abbreviation).toMatch(/^[A-Z]{2}$/);
  });

  it.each(nonStates)('includes %s (%s)', (name, abbreviation) => {
    expect(usStates).toContainEqual({ name, abbreviation });
  });

  it.each([
    ['California', 'CA'],
    ['New York', 'NY'],
    ['Texas', 'TX'],
    ['Wyoming', 'WY'],
    ['Alaska', 'AK'],
    ['Hawaii', 'HI'],
  ])('includes the state %s (%s)', (name, abbreviation) => {
    expect(usStates).toContainEqual({ name, abbreviation });
  });
});

describe('findUsState', () => {
  it.each([
    ['ca', 'CA'],
    ['CA', 'CA'],
    ['california', 'CA'],
    ['PUERTO RICO', 'PR'],
    ['district of columbia', 'DC'],
  ])('finds %j', (text, abbreviation) => {
    expect(findUsState(text)?.abbreviation).toBe(abbreviation);
  });

  it.each([['XX'], ['Calif'], [''], ['C A']])('finds nothing for %j', (text) => {
    expect(findUsState(text)).toBeNull();
  });
});
