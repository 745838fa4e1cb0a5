import { isApiError } from '@entry/client';
import { consumerApi } from '../../../lib/api-client.ts';

export type AccessLookup =
  | { kind: 'found'; target: string }
  /** The server knows no tenant by that subdomain. */
  | { kind: 'notFound' }
  /** Anything else: the client has already told the person in the snack-bar. */
  | { kind: 'failed' };

/**
 * GET /v1/access/:subdomain. Loaded on demand, so the picker's form is usable before the API
 * client and its schemas arrive.
 */
export async function lookUpAccess(subdomain: string): Promise<AccessLookup> {
  try {
    const access = await consumerApi().access.bySubdomain(subdomain);
    return { kind: 'found', target: access.target };
  } catch (error) {
    if (isApiError(error) && (error.status === 404 || error.errorCode === 'ItemNotFound')) {
      return { kind: 'notFound' };
    }
    return { kind: 'failed' };
  }
}
