import { type ConsumerIdentityToken, consumerIdentityTokenSchema } from '@entry/domain';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { datedReader, type WithDates } from './wire.ts';

type ConsumerIdentityTokenResult = Omit<
  WithDates<ConsumerIdentityToken, 'createdAt' | 'expiresAt' | 'lastUsedAt'>,
  'lockedUntil'
> & { lockedUntil?: Date | null };

export interface IdentityTokensApi {
  /** GET /v1/consumers/token/:token; `addAction` records that the link was opened. */
  get(
    token: string | null | undefined,
    options?: { addAction?: boolean } & CallOptions,
  ): Promise<ConsumerIdentityTokenResult>;
  /** GET /v1/consumers/token/:token/verify; 403 `TokenExpired` for an expired token. */
  verify(token: string | null | undefined, options?: CallOptions): Promise<ConsumerIdentityTokenResult>;
}

const identityTokenReader = datedReader<ConsumerIdentityTokenResult>(consumerIdentityTokenSchema);

function tokenPath(token: string | null | undefined): string {
  return `/api/auth/v1/consumers/token/${requireParameter('token', token)}`;
}

export function createIdentityTokensApi(http: HttpClient): IdentityTokensApi {
  return {
    async get(token, { addAction, explainedByPage } = {}) {
      return http.call({
        explainedByPage,
        method: 'GET',
        path: tokenPath(token),
        query: { addAction },
        reader: identityTokenReader,
        listed: [404],
        scope: 'consumer',
        session: 'optional',
      });
    },
    async verify(token, options = {}) {
      return http.call({
        ...options,
        method: 'GET',
        path: `${tokenPath(token)}/verify`,
        reader: identityTokenReader,
        listed: [404, 403, 400],
        scope: 'consumer',
        session: 'optional',
      });
    },
  };
}
