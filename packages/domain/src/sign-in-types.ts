/** Consumer sign-in types. */
export const signInTypes = ['None', 'Direct', 'Last4Ssn', 'PostalCode', 'DateOfBirth'] as const;

export type SignInType = (typeof signInTypes)[number];

/** The verification fields a lookup sign-in needs for a token's sign-in type (docs/rules.md#verification). */
export type VerificationField = 'last4Ssn' | 'postalCode' | 'dateOfBirth';

export const allVerificationFields: readonly VerificationField[] = ['last4Ssn', 'postalCode', 'dateOfBirth'];

export function verificationFieldsFor(signInType: SignInType | null): readonly VerificationField[] {
  switch (signInType) {
    case 'Last4Ssn':
      return ['last4Ssn'];
    case 'PostalCode':
      return ['postalCode'];
    case 'DateOfBirth':
      return ['dateOfBirth'];
    default:
      return allVerificationFields;
  }
}
