import { type AuthTokenResult, type IdentityTokenSignInRequest, roleIdByScope } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { directSignInEvent } from '../stores/direct-sign-ins.ts';
import { type ConsumerCodeStep, createConsumerCodeStep } from './consumer-code.ts';
import { type ConsumerLookup, createConsumerLookup } from './consumer-lookup.ts';
import { signInParts } from './consumer-sign-in-parts.ts';
import { signInWithDirectLink } from './direct-sign-in.ts';

/**
 * Consumer sign-in (docs/rules.md#verification): with a Direct identity token, by knowledge-based
 * verification (lookup), and the MFA step that follows a lookup when the tenant requires it.
 *
 * Choices where the design leaves room (docs/decisions/004-consumer-sign-in-choices.md):
 * - identity-token sign-in with a token that needs verification: 400 InvalidValue on `token`
 *   (within the spec's statuses for the call; the guard only sends Direct tokens here);
 * - a customerId and subdomain that do not name the same tenant: 404 ItemNotFound, as an unknown
 *   tenant; a token of another tenant: 404 ItemNotFound, as an unknown token;
 * - lookup with an expired token: 404 TokenExpired, as the identity-token sign-in;
 * - MFA required but no address on file: 409 InvalidState (a code cannot be delivered);
 * - the MFA call with a full session: 409 InvalidState (nothing is pending);
 * - resend within a minute of the last code: 429 ToManyRequests with Retry-After.
 */

export interface ConsumerSignIn extends ConsumerLookup, ConsumerCodeStep {
  /** A Direct link's sign-in: the first token pair. */
  withIdentityToken(body: IdentityTokenSignInRequest, ip: string): Promise<AuthTokenResult>;
}

export function createConsumerSignIn(ctx: AppContext): ConsumerSignIn {
  const { audit } = ctx;
  const parts = signInParts(ctx);
  const { tenantOf, keepLanguage } = parts;
  return {
    async withIdentityToken(body, ip) {
      const signIn = await signInWithDirectLink(ctx, body, ip, roleIdByScope.consumer);
      if (signIn.outcome === 'unknown') {
        await tenantOf(body.customerId, body.subdomain);
        throw refuse('linkNotFound');
      }
      const { token } = signIn;
      if (signIn.outcome === 'signed-in') {
        await keepLanguage(token.consumerId, body.language ?? null, signIn.consumerLanguage);
        return signIn.pair;
      }
      const refused = {
        event: directSignInEvent,
        actor: `consumer:${token.consumerId}`,
        tenantId: token.tenantId,
        ip,
        outcome: 'failure',
      } as const;
      if (signIn.outcome === 'not-direct') {
        await audit.record({ ...refused, detail: { identityToken: token.guid } });
        throw refuse('notDirectToken');
      }
      await audit.record({ ...refused, detail: { identityToken: token.guid, expired: true } });
      throw refuse('linkExpired');
    },
    ...createConsumerLookup(ctx, parts),
    ...createConsumerCodeStep(ctx, parts),
  };
}
