import { describe, expect, it } from 'vitest';
import { signInTypes, verificationFieldsFor } from './sign-in-types.ts';

describe('sign-in types', () => {
  it('are the five consumer sign-in types of the spec', () => {
    expect(signInTypes).toEqual(['None', 'Direct', 'Last4Ssn', 'PostalCode', 'DateOfBirth']);
  });

  it.each([
    ['Last4Ssn', ['last4Ssn']],
    ['PostalCode', ['postalCode']],
    ['DateOfBirth', ['dateOfBirth']],
    ['None', ['last4Ssn', 'postalCode', 'dateOfBirth']],
    [null, ['last4Ssn', 'postalCode', 'dateOfBirth']],
  ] as const)('a %s token asks for %j', (signInType, fields) => {
    expect(verificationFieldsFor(signInType)).toEqual(fields);
  });
});
