import { type AccessResult, accessResultSchema } from '@entry/domain';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { plainReader } from './wire.ts';

export interface AccessApi {
  /** GET /v1/access/:subdomain; 404 when no tenant has that subdomain. */
  bySubdomain(subdomain: string | null | undefined, options?: CallOptions): Promise<AccessResult>;
  /** GET /v1/access/customer/:customerId. */
  byCustomerId(customerId: number | null | undefined): Promise<AccessResult>;
}

const accessReader = plainReader(accessResultSchema);

export function createAccessApi(http: HttpClient): AccessApi {
  return {
    async bySubdomain(subdomain, options = {}) {
      return http.call({
        ...options,
        method: 'GET',
        path: `/api/auth/v1/access/${requireParameter('subdomain', subdomain)}`,
        reader: accessReader,
        listed: [404],
        session: 'optional',
      });
    },
    async byCustomerId(customerId) {
      return http.call({
        method: 'GET',
        path: `/api/auth/v1/access/customer/${requireParameter('customerId', customerId)}`,
        reader: accessReader,
        listed: [],
        session: 'optional',
      });
    },
  };
}
