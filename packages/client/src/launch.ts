import { type LaunchResult, launchResultSchema } from '@entry/domain';
import { type HttpClient, requireParameter } from './http.ts';
import { plainReader } from './wire.ts';

/** An admin opens a customer's or a dash's portal as that customer (DESIGN.md section 5). */
export interface LaunchApi {
  /** POST /v1/launch/customer/:customerId: a single-use launch token, valid 60 seconds. */
  customer(customerId: number | null | undefined): Promise<LaunchResult>;
  /** POST /v1/launch/dashbilling/:customerId. */
  dashBilling(customerId: number | null | undefined): Promise<LaunchResult>;
}

const launchReader = plainReader(launchResultSchema);

export function createLaunchApi(http: HttpClient): LaunchApi {
  const launch = async (kind: 'customer' | 'dashbilling', customerId: number | null | undefined) =>
    http.call({
      method: 'POST',
      path: `/api/auth/v1/launch/${kind}/${requireParameter('customerId', customerId)}`,
      reader: launchReader,
      listed: [400, 404],
      scope: 'admin',
    });
  return {
    customer: (customerId) => launch('customer', customerId),
    dashBilling: (customerId) => launch('dashbilling', customerId),
  };
}
