import { describe, expect, it } from 'vitest';
import { errorCodes, errorMessages, isErrorCode } from './errors.ts';

describe('error codes', () => {
  it('are the 20 codes, spelled as the API sends them', () => {
    expect(errorCodes).toEqual([
      'Unknown',
      'InvalidValue',
      'DuplicateValue',
      'InvalidState',
      'ItemNotFound',
      'NotAuthorized',
      'NotPermitted',
      'PasswordExpired',
      'WeakPassword',
      'ReservedValue',
      'ItemInUse',
      'FailedDependency',
      'InvalidSignIn',
      'Ambiguous',
      'TokenExpired',
      'UserLocked',
      'ServiceUnavailable',
      'UserOptedOut',
      'ToManyRequests',
      'InvalidImportFile',
    ]);
  });

  it.each([
    ['ToManyRequests', true],
    ['TokenExpired', true],
    ['TooManyRequests', false],
    ['notauthorized', false],
    ['', false],
    [42, false],
    [null, false],
  ])('isErrorCode(%j) is %s', (value, expected) => {
    expect(isErrorCode(value)).toBe(expected);
  });
});

describe('error catalogue messages, word for word', () => {
  it.each([
    [errorMessages.listedStatus, 'A server side error occurred.'],
    [errorMessages.unexpectedStatus, 'An unexpected server error occurred.'],
    [errorMessages.connectionLost, 'The connection to the server has been lost. Please sign in again.'],
    [errorMessages.tokenExpired, 'Token has expired.'],
    [errorMessages.serverError, 'The server returned an error. Please try again later.'],
    [errorMessages.unknownError, 'An unknown error occurred. Please try again later.'],
  ])('%j', (actual, expected) => {
    expect(actual).toBe(expected);
  });
});
