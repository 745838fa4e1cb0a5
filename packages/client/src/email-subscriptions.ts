import { callCheckMessages, type EmailSubscription, emailSubscriptionSchema } from '@entry/domain';
import { ApiError } from './api-error.ts';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { datedReader, type WithDates } from './wire.ts';

export type EmailSubscriptionResult = WithDates<EmailSubscription, 'changedAt'>;

interface EmailSubscriptionUpdate {
  token: string | null | undefined;
  /** Must be the token's own address when given; the server never changes the address. */
  emailAddress?: string | null | undefined;
  unsubscribed: boolean | null | undefined;
}

export interface EmailSubscriptionsApi {
  /** GET /v1/communication/email/subscription/token/:token. */
  byToken(token: string | null | undefined, options?: CallOptions): Promise<EmailSubscriptionResult>;
  /** POST /v1/communication/email/subscription?Token=&EmailAddress=&Unsubscribed=: the state the server now holds. */
  update(update: EmailSubscriptionUpdate, options?: CallOptions): Promise<EmailSubscriptionResult>;
}

const subscriptionReader = datedReader<EmailSubscriptionResult>(emailSubscriptionSchema);
const subscriptionPath = '/api/v1/communication/email/subscription';
/** Both calls list the same statuses. */
const listed = [401, 404, 502] as const;

export function createEmailSubscriptionsApi(http: HttpClient): EmailSubscriptionsApi {
  return {
    async byToken(token, options = {}) {
      return http.call({
        ...options,
        method: 'GET',
        path: `${subscriptionPath}/token/${requireParameter('token', token)}`,
        reader: subscriptionReader,
        listed,
        session: 'optional',
      });
    },
    async update({ token, emailAddress, unsubscribed }, options = {}) {
      if (token === null || token === undefined || token === '') {
        throw new ApiError('parameter', callCheckMessages.tokenMustBeDefined);
      }
      if (unsubscribed === null || unsubscribed === undefined) {
        throw new ApiError('parameter', callCheckMessages.unsubscribedCannotBeNull);
      }
      return http.call({
        ...options,
        method: 'POST',
        path: subscriptionPath,
        query: { Token: token, EmailAddress: emailAddress, Unsubscribed: unsubscribed },
        reader: subscriptionReader,
        listed,
        session: 'optional',
      });
    },
  };
}
