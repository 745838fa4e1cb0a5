import type { StaffKind } from '@entry/domain';
import {
  authTokenResultSchema,
  enrolmentResultSchema,
  passkeyOptionsResultSchema,
  passkeyRegistrationRequestSchema,
  passkeyRenameRequestSchema,
  passkeySignInRequestSchema,
} from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import {
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  removeUserPasskey,
  renameUserPasskey,
  signInWithPasskey,
} from '../services/passkeys.ts';
import { secondFactorSessions } from './second-factors.ts';
import { authenticateIfBearer, principalOf, requireSession, setRefreshCookie } from './session-http.ts';
import { article, errors, noContentSchema } from './staff-routes.ts';

/** A passkey's id in a path: its credential id, base64url. */
const passkeyParamsSchema = z.strictObject({ id: z.string().regex(/^[A-Za-z0-9_-]{1,1400}$/) });

/** Passkeys of admins and customer users: the same calls for both kinds. */
export function registerStaffPasskeyRoutes(
  zodApp: Parameters<FastifyPluginAsyncZod>[0],
  ctx: AppContext,
  kind: StaffKind,
): void {
  const base = `/api/auth/v1/${kind}`;
  // A second step or step-up names its session; a usernameless sign-in has none.
  const secondStep = { allowRestricted: ['SecondFactorPending'] } as const;
  const sessions = secondFactorSessions(ctx, kind);
  const fullOnly = requireSession(ctx, kind);
  const tags = [kind];

  zodApp.post(
    `${base}/sign-in/passkey/options`,
    {
      config: { failureLimited: true, signInBound: true },
      schema: {
        summary: `Start signing in as ${article(kind)} with a passkey`,
        description:
          'Without a bearer token: any passkey of this site (usernameless). With the token of a session ' +
          "waiting for its second step, or of a full session stepping up: one of its user's passkeys. " +
          'The challenge is bound to that session, or to none, and answers once within five minutes.',
        tags,
        security: [{}, { bearer: [] }],
        response: { 200: passkeyOptionsResultSchema, ...errors(401, 403) },
      },
    },
    async (request) =>
      passkeySignInOptions(ctx, kind, await authenticateIfBearer(ctx, request, kind, secondStep)),
  );

  zodApp.post(
    `${base}/sign-in/passkey`,
    {
      config: { failureLimited: true, signInBound: true },
      schema: {
        summary: `Sign in as ${article(kind)} with a passkey, or pass the second step with one`,
        description:
          'Send the bearer token the options call was made with, if any. Without one, a new full session ' +
          'opens; with a waiting session, it gets full access; with a full session, a step-up. A failed try ' +
          "counts toward the account's lock.",
        tags,
        security: [{}, { bearer: [] }],
        body: passkeySignInRequestSchema,
        response: { 200: authTokenResultSchema, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const principal = await authenticateIfBearer(ctx, request, kind, secondStep);
      const result = await signInWithPasskey(ctx, kind, principal, request.body, request.ip);
      setRefreshCookie(ctx, reply, kind, result);
      return result;
    },
  );

  zodApp.post(
    `${base}/second-factors/passkeys/options`,
    {
      preHandler: sessions.enrolment,
      schema: {
        summary: `Start adding a passkey to ${article(kind)}'s account`,
        description:
          'A user who has a second factor must have used one in this session within the last 15 minutes.',
        tags,
        security: [{ bearer: [] }],
        response: { 200: passkeyOptionsResultSchema, ...errors(401, 403) },
      },
    },
    async (request) => passkeyRegistrationOptions(ctx, principalOf(request)),
  );

  zodApp.post(
    `${base}/second-factors/passkeys`,
    {
      preHandler: sessions.enrolment,
      schema: {
        summary: `Add the passkey the authenticator created to ${article(kind)}'s account`,
        description:
          "The session gets a new token pair with full access; a user's first factor comes with ten recovery codes.",
        tags,
        security: [{ bearer: [] }],
        body: passkeyRegistrationRequestSchema,
        response: { 200: enrolmentResultSchema, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const result = await registerPasskey(ctx, principalOf(request), request.body, request.ip);
      setRefreshCookie(ctx, reply, kind, result.auth);
      return result;
    },
  );

  zodApp.patch(
    `${base}/second-factors/passkeys/:id`,
    {
      preHandler: fullOnly,
      schema: {
        summary: `Rename one of ${article(kind)}'s passkeys`,
        tags,
        security: [{ bearer: [] }],
        params: passkeyParamsSchema,
        body: passkeyRenameRequestSchema,
        response: { 204: noContentSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await renameUserPasskey(ctx, principalOf(request), request.params.id, request.body.name, request.ip);
      return reply.status(204).send(null);
    },
  );

  zodApp.delete(
    `${base}/second-factors/passkeys/:id`,
    {
      preHandler: fullOnly,
      schema: {
        summary: `Remove one of ${article(kind)}'s passkeys`,
        description: 'Refused (409) when it is the last second factor of an account that requires one.',
        tags,
        security: [{ bearer: [] }],
        params: passkeyParamsSchema,
        response: { 204: noContentSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeUserPasskey(ctx, principalOf(request), request.params.id, request.ip);
      return reply.status(204).send(null);
    },
  );
}
