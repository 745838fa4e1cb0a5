import { isApiError, isUnreachable } from '@entry/client';
import { consumerApi } from '../../../lib/api-client.ts';

export type AccessLookup =
  | { kind: 'found'; target: string }
  /** The server knows no tenant by that subdomain. */
  | { kind: 'notFound' }
  /** No answer, none in time, or a server error: the same lookup may work a moment later. */
  | { kind: 'unreachable' }
  /** Any other refusal (too many attempts from this network, for one). */
  | { kind: 'refused' };

/**
 * GET /v1/access/:subdomain. Loaded on demand, so the picker's form is usable before the API
 * client and its schemas arrive. The picker explains every outcome itself (docs/decisions/026).
 */
export async function lookUpAccess(subdomain: string): Promise<AccessLookup> {
  try {
    const access = await consumerApi().access.bySubdomain(subdomain, { explainedByPage: true });
    return { kind: 'found', target: access.target };
  } catch (error) {
    if (isApiError(error) && (error.status === 404 || error.errorCode === 'ItemNotFound')) {
      return { kind: 'notFound' };
    }
    return isUnreachable(error) ? { kind: 'unreachable' } : { kind: 'refused' };
  }
}
