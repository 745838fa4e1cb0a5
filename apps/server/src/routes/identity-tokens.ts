import {
  type ConsumerIdentityToken,
  consumerIdentityTokenSchema,
  errorBodySchema,
  identityTokenQuerySchema,
  tokenParamSchema,
} from '@entry/domain';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import type { LinkOpening } from '../services/audit.ts';
import { createAuditBatcher } from '../services/audit-batch.ts';
import { findLinkToRead, isExpired, toWireIdentityToken } from '../services/identity-tokens.ts';
import type { IdentityTokenRecord } from '../stores/identity-tokens.ts';
import { hotReadOptions, keptAnswerOf } from './hot-read.ts';
import { authenticate } from './session-http.ts';

/** Link openings waiting to be written before readers start to wait for them. */
const maxQueuedOpenings = 5_000;

export function identityTokenRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const params = z.strictObject({ token: tokenParamSchema });

  /**
   * Payment data only for the consumer's own full session, for a read with a bearer token. The
   * read itself is public, so a stale or foreign bearer token simply gets no data rather than an error.
   */
  async function bearerIsOwner(request: FastifyRequest, record: IdentityTokenRecord): Promise<boolean> {
    try {
      const principal = await authenticate(ctx, request, 'consumer');
      return principal.consumerId === record.consumer.id && principal.tenantId === record.tenant.id;
    } catch {
      return false;
    }
  }

  /**
   * The answer without payment data, made once for each record the read cache holds: a lock that
   * ends while the record is kept shows for at most the cache's few seconds more.
   */
  const publicAnswer = keptAnswerOf((record: IdentityTokenRecord) =>
    toWireIdentityToken(record, false, ctx.clock.now()),
  );

  /** Without a bearer token (every letter link's first read) the kept answer, with no promise to wait on. */
  function answerFor(
    request: FastifyRequest,
    record: IdentityTokenRecord,
  ): ConsumerIdentityToken | Promise<ConsumerIdentityToken> {
    if (request.headers.authorization === undefined) return publicAnswer(record);
    return bearerIsOwner(request, record).then((owner) =>
      owner ? toWireIdentityToken(record, true, ctx.clock.now()) : publicAnswer(record),
    );
  }

  const linkOpenings = createAuditBatcher((openings: LinkOpening[]) =>
    ctx.audit.recordLinkOpenings(openings),
  );

  return async (app) => {
    app.addHook('onClose', () => linkOpenings.idle());

    app.get(
      '/api/auth/v1/consumers/token/:token',
      {
        config: { failureLimited: 'read', signInBound: true },
        ...hotReadOptions,
        schema: {
          summary: 'Read a letter link (identity token)',
          description: "Payment data only with a bearer token of the link's consumer in a full session.",
          tags: ['consumer'],
          security: [{}, { bearer: [] }],
          params,
          querystring: identityTokenQuerySchema,
          response: { 200: consumerIdentityTokenSchema, 400: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (request, reply) => {
        const record = await findLinkToRead(ctx, request.params.token);
        if (request.query.addAction === true) {
          // Past this many openings waiting, a reader waits for the writes: memory stays bounded.
          if (linkOpenings.backlog() >= maxQueuedOpenings) await linkOpenings.idle();
          // Recorded after the answer has gone, in batches, so the reader never waits on the
          // audit write; reads themselves never write. One row per link, address and hour.
          const ip = request.ip;
          reply.then(
            () =>
              linkOpenings
                .add({
                  identityTokenGuid: record.token.guid,
                  consumerId: record.consumer.id,
                  tenantId: record.tenant.id,
                  ip,
                })
                .catch((error: unknown) =>
                  request.log.error({ err: error }, 'recording a link opening failed'),
                ),
            () => undefined,
          );
        }
        return answerFor(request, record);
      },
    );

    app.get(
      '/api/auth/v1/consumers/token/:token/verify',
      {
        config: { failureLimited: 'read', signInBound: true },
        ...hotReadOptions,
        schema: {
          summary: 'Read a letter link that must not have expired',
          description: "Payment data only with a bearer token of the link's consumer in a full session.",
          tags: ['consumer'],
          security: [{}, { bearer: [] }],
          params,
          querystring: z.strictObject({}),
          response: {
            200: consumerIdentityTokenSchema,
            400: errorBodySchema,
            403: errorBodySchema,
            404: errorBodySchema,
          },
        },
      },
      async (request) => {
        const record = await findLinkToRead(ctx, request.params.token);
        if (isExpired(record.token, ctx.clock.now())) {
          throw refuse('linkExpiredOnVerify');
        }
        return answerFor(request, record);
      },
    );
  };
}
