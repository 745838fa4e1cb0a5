/** The error codes, spelled exactly as the API sends them (including `ToManyRequests`). */
export const errorCodes = [
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
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (errorCodes as readonly string[]).includes(value);
}

/** The user-facing texts of the error catalogue, word for word. */
export const errorMessages = {
  listedStatus: 'A server side error occurred.',
  unexpectedStatus: 'An unexpected server error occurred.',
  connectionLost: 'The connection to the server has been lost. Please sign in again.',
  tokenExpired: 'Token has expired.',
  serverError: 'The server returned an error. Please try again later.',
  unknownError: 'An unknown error occurred. Please try again later.',
} as const;
