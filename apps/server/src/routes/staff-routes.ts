import type { StaffKind } from '@entry/domain';
import {
  authTokenResultSchema,
  errorBodySchema,
  passwordChangeRequestSchema,
  passwordResetCheckRequestSchema,
  passwordResetRequestSchema,
  passwordSignInRequestSchema,
} from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { clientGone } from '../client-gone.ts';
import type { AppContext } from '../context.ts';
import { staffSignIn } from '../services/staff-auth.ts';
import { changePassword, checkResetToken, requestPasswordReset } from '../services/staff-password-changes.ts';
import { identifyLiveSession, setRefreshCookie } from './session-http.ts';

/** The error body as the answer of each of these statuses. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, errorBodySchema]));
export const noContentSchema = z.null().describe('No content');

export const article = (kind: StaffKind) => (kind === 'admin' ? 'an admin' : 'a customer user');

/** Password sign-in, reset and change: the same calls for admins and customers. */
export function registerStaffPasswordRoutes(
  zodApp: Parameters<FastifyPluginAsyncZod>[0],
  ctx: AppContext,
  kind: StaffKind,
): void {
  const base = `/api/auth/v1/${kind}`;

  zodApp.post(
    `${base}/sign-in`,
    {
      config: { failureLimited: true, signInBound: true },
      schema: {
        summary: `Sign in as ${article(kind)} with username and password`,
        tags: [kind],
        body: passwordSignInRequestSchema,
        response: { 200: authTokenResultSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const result = await staffSignIn(ctx, kind, request.body, request.ip, clientGone(reply));
      setRefreshCookie(ctx, reply, kind, result);
      return result;
    },
  );

  zodApp.post(
    `${base}/password/reset`,
    {
      config: { failureLimited: 'every' },
      schema: {
        summary: `Mail ${article(kind)} a password reset link`,
        description:
          'Answers 204 whether or not the user exists. At most three reset mails per user per hour; later requests send nothing. Every request counts toward the per-address limit.',
        tags: [kind],
        body: passwordResetRequestSchema,
        response: { 204: noContentSchema, ...errors(400, 429) },
      },
    },
    async (request, reply) => {
      requestPasswordReset(ctx, kind, request.body.username, request.ip, request.log);
      return reply.status(204).send(null);
    },
  );

  zodApp.post(
    `${base}/password/reset/check`,
    {
      config: { failureLimited: true },
      schema: {
        summary: `Check that ${article(kind)}'s reset token can still set a password`,
        description:
          'Changes nothing. Refuses an unknown, used or expired token as the password change does, so the reset page can say so before a password is typed.',
        tags: [kind],
        body: passwordResetCheckRequestSchema,
        response: { 204: noContentSchema, ...errors(400, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await checkResetToken(ctx, kind, request.body.resetToken);
      return reply.status(204).send(null);
    },
  );

  zodApp.post(
    `${base}/password/change`,
    {
      config: { failureLimited: true },
      schema: {
        summary: `Set ${article(kind)}'s new password with a reset token`,
        description: 'A bearer token or refresh cookie names the session to keep; every other one ends.',
        tags: [kind],
        security: [{}, { bearer: [] }, { refreshCookie: [] }],
        body: passwordChangeRequestSchema,
        response: { 204: noContentSchema, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const session = await identifyLiveSession(ctx, request, kind);
      await changePassword(
        ctx,
        kind,
        request.body,
        request.ip,
        session === undefined ? undefined : { ...session, sessionId: session.id },
      );
      return reply.status(204).send(null);
    },
  );
}
