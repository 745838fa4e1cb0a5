import {
  emailSubscriptionSchema,
  errorBodySchema,
  oneClickUnsubscribeQuerySchema,
  subscriptionTokenParamSchema,
  subscriptionUpdateQuerySchema,
} from '@entry/domain';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import {
  findOrCreateSubscription,
  oneClickUnsubscribePath,
  setSubscription,
  toWireSubscription,
} from '../services/subscriptions.ts';
import {
  normaliseEmailAddress,
  type SubscriptionSubject,
  verifySubscriptionToken,
} from '../services/subscriptions-token.ts';

/**
 * Email subscriptions by token (docs/rules.md#subscriptions) and the RFC 8058 one-click unsubscribe
 * that every mail's `List-Unsubscribe` header points at.
 */

export function emailSubscriptionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const { db, clock, audit } = ctx;
  const response = {
    200: emailSubscriptionSchema,
    400: errorBodySchema,
    401: errorBodySchema,
    404: errorBodySchema,
  };

  function subjectOf(token: string): SubscriptionSubject {
    const subject = verifySubscriptionToken(ctx.subscriptionKey, token);
    if (subject === null) throw refuse('subscriptionLinkInvalid');
    return subject;
  }

  async function change(
    request: FastifyRequest,
    subject: SubscriptionSubject,
    unsubscribed: boolean,
    via: string,
  ) {
    const result = await setSubscription(db, subject, unsubscribed, clock.now());
    if (result === null) throw refuse('subscriptionTenantNotFound');
    await audit.record({
      event: 'email.subscription.change',
      outcome: 'success',
      actor: `email:${result.row.emailAddress}`,
      tenantId: subject.customerId,
      ip: request.ip,
      detail: { unsubscribed, changed: result.changed, via },
    });
    return toWireSubscription(result.row);
  }

  return async (app) => {
    app.get(
      '/api/v1/communication/email/subscription/token/:token',
      {
        config: { failureLimited: 'read' },
        schema: {
          summary: "Read an address's e-mail subscription by its signed token",
          tags: ['email subscription'],
          params: z.strictObject({ token: subscriptionTokenParamSchema }),
          response,
        },
      },
      async (request) => {
        const subject = subjectOf(request.params.token);
        const row = await findOrCreateSubscription(db, subject, clock.now());
        if (row === null) throw refuse('subscriptionTenantNotFound');
        return toWireSubscription(row);
      },
    );

    app.post(
      '/api/v1/communication/email/subscription',
      {
        config: { failureLimited: 'read' },
        schema: {
          summary: "Subscribe or unsubscribe an address's e-mail by its signed token",
          tags: ['email subscription'],
          querystring: subscriptionUpdateQuerySchema,
          response,
        },
      },
      async (request) => {
        const subject = subjectOf(request.query.Token);
        const { EmailAddress } = request.query;
        // The address comes from the token; a different one is refused, never written.
        if (EmailAddress !== undefined && normaliseEmailAddress(EmailAddress) !== subject.emailAddress) {
          throw refuse('subscriptionLinkInvalid');
        }
        return change(request, subject, request.query.Unsubscribed, 'preferences');
      },
    );

    // Only the one-click call takes a body other than JSON, so its parsers live in a context of its own.
    const oneClickContext: FastifyPluginAsyncZod = async (oneClick) => {
      // Mail providers send the one-click POST as a form; some use multipart. Its body carries no
      // information beyond `List-Unsubscribe=One-Click`, so any of these is accepted as it is.
      await oneClick.register(fastifyFormbody);
      oneClick.addContentTypeParser(
        ['multipart/form-data', 'text/plain'],
        { parseAs: 'string' },
        (_request, body, done) => done(null, body),
      );
      oneClick.post(
        oneClickUnsubscribePath,
        {
          // Mail providers post it from their own hosts (RFC 8058).
          config: { failureLimited: 'read', crossSiteAllowed: true },
          schema: {
            summary: 'Unsubscribe with one click from a mail (RFC 8058)',
            tags: ['email subscription'],
            querystring: oneClickUnsubscribeQuerySchema,
            response,
          },
        },
        async (request) => change(request, subjectOf(request.query.token), true, 'one-click'),
      );
    };
    await app.register(oneClickContext);
  };
}
