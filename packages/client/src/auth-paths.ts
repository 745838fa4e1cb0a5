import { authTokenResultSchema, type Scope } from '@entry/domain';
import { plainReader } from './wire.ts';

/**
 * What the auth calls of every scope share, the refresh the HTTP client makes on its own included:
 * the path of each call and the reader of a token answer.
 */

export const authTokenReader = plainReader(authTokenResultSchema);

export function authPath(scope: Scope, action: string): string {
  return `/api/auth/v1/${scope}/${action}`;
}
