import { type LaunchResult, launchResultSchema } from '@entry/domain';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { plainReader } from './wire.ts';

/** An admin opens a customer's or a dash's portal as that customer (docs/rules.md#launch). */
export interface LaunchApi {
  /** POST /v1/launch/customer/:customerId: a single-use launch token, valid 60 seconds. */
  customer(customerId: number | null | undefined, options?: CallOptions): Promise<LaunchResult>;
  /** POST /v1/launch/dashbilling/:customerId. */
  dashBilling(customerId: number | null | undefined, options?: CallOptions): Promise<LaunchResult>;
}

const launchReader = plainReader(launchResultSchema);

export function createLaunchApi(http: HttpClient): LaunchApi {
  const launch = async (
    kind: 'customer' | 'dashbilling',
    customerId: number | null | undefined,
    options: CallOptions = {},
  ) =>
    http.call({
      ...options,
      method: 'POST',
      path: `/api/auth/v1/launch/${kind}/${requireParameter('customerId', customerId)}`,
      reader: launchReader,
      listed: [400, 404],
      scope: 'admin',
    });
  return {
    customer: (customerId, options) => launch('customer', customerId, options),
    dashBilling: (customerId, options) => launch('dashbilling', customerId, options),
  };
}
