import type { StaffKind } from '@entry/domain';
import {
  authTokenResultSchema,
  enrolmentResultSchema,
  recoveryCodesSchema,
  secondFactorSignInRequestSchema,
  secondFactorsSchema,
  totpConfirmRequestSchema,
  totpEnrolmentSchema,
} from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import {
  confirmTotpEnrolment,
  listSecondFactors,
  regenerateRecoveryCodes,
  removeTotp,
  signInWithSecondFactor,
  startTotpEnrolment,
} from '../services/second-factors.ts';
import { principalOf, requireSession, setRefreshCookie } from './session-http.ts';
import { errors, noContentSchema } from './staff-routes.ts';

/**
 * Which sessions each call lets through besides full ones: a session waiting for its second step
 * only reaches that step, one that must enrol only the enrolment, so a password alone never adds a
 * factor to an account that has one.
 */
export function secondFactorSessions(ctx: AppContext, kind: StaffKind) {
  return {
    secondStep: requireSession(ctx, kind, { allowRestricted: ['SecondFactorPending'] }),
    enrolment: requireSession(ctx, kind, { allowRestricted: ['SecondFactorEnrolment'] }),
    listing: requireSession(ctx, kind, {
      allowRestricted: ['SecondFactorPending', 'SecondFactorEnrolment'],
    }),
  };
}

const stepUpNote =
  'A user who already has a second factor must have used one in this session within the last 15 minutes ' +
  '(else 403 with `stepUpRequired: true`).';

/** The second step, the authenticator app and the recovery codes of admins and customer users. */
export function registerSecondFactorRoutes(
  zodApp: Parameters<FastifyPluginAsyncZod>[0],
  ctx: AppContext,
  kind: StaffKind,
): void {
  const base = `/api/auth/v1/${kind}`;
  const sessions = secondFactorSessions(ctx, kind);
  const tags = [kind];
  const security = [{ bearer: [] }];

  zodApp.post(
    `${base}/sign-in/second-factor`,
    {
      config: { failureLimited: true, signInBound: true },
      preHandler: sessions.secondStep,
      schema: {
        summary: 'Complete a password sign-in, or step up a session, with an authenticator or recovery code',
        description:
          'Takes the restricted token of a password sign-in (`SecondFactorPending`) or a full token (step-up). ' +
          'A wrong code counts toward the account lock like a wrong password.',
        tags,
        security,
        body: secondFactorSignInRequestSchema,
        response: { 200: authTokenResultSchema, ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const result = await signInWithSecondFactor(ctx, principalOf(request), request.body, request.ip);
      setRefreshCookie(ctx, reply, kind, result);
      return result;
    },
  );

  zodApp.get(
    `${base}/second-factors`,
    {
      preHandler: sessions.listing,
      schema: {
        summary: "List the signed-in user's second factors and the policy that applies",
        tags,
        security,
        response: { 200: secondFactorsSchema, ...errors(401, 403) },
      },
    },
    (request) => listSecondFactors(ctx, principalOf(request)),
  );

  zodApp.post(
    `${base}/second-factors/totp`,
    {
      preHandler: sessions.enrolment,
      schema: {
        summary: 'Start setting up an authenticator app',
        description: `Replaces one not yet confirmed; 409 when a confirmed one exists. ${stepUpNote}`,
        tags,
        security,
        response: { 200: totpEnrolmentSchema, ...errors(401, 403, 409) },
      },
    },
    (request) => startTotpEnrolment(ctx, principalOf(request)),
  );

  zodApp.post(
    `${base}/second-factors/totp/confirm`,
    {
      config: { failureLimited: true },
      preHandler: sessions.enrolment,
      schema: {
        summary: 'Confirm the authenticator app with its first code',
        description:
          'Answers a new token pair with full access, and ten recovery codes (shown once) when this is ' +
          `the user's first second factor. ${stepUpNote}`,
        tags,
        security,
        body: totpConfirmRequestSchema,
        response: { 200: enrolmentResultSchema, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const result = await confirmTotpEnrolment(ctx, principalOf(request), request.body.code, request.ip);
      setRefreshCookie(ctx, reply, kind, result.auth);
      return result;
    },
  );

  zodApp.delete(
    `${base}/second-factors/totp`,
    {
      preHandler: requireSession(ctx, kind),
      schema: {
        summary: 'Remove the authenticator app',
        description: `409 when it is the last second factor and the user must have one. ${stepUpNote}`,
        tags,
        security,
        response: { 204: noContentSchema, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeTotp(ctx, principalOf(request), request.ip);
      return reply.status(204).send(null);
    },
  );

  zodApp.post(
    `${base}/second-factors/recovery-codes`,
    {
      preHandler: requireSession(ctx, kind),
      schema: {
        summary: 'Replace the recovery codes with ten new ones',
        description: `The earlier codes stop working; the new ones are shown once. ${stepUpNote}`,
        tags,
        security,
        response: { 200: recoveryCodesSchema, ...errors(401, 403, 409) },
      },
    },
    async (request) => ({
      recoveryCodes: await regenerateRecoveryCodes(ctx, principalOf(request), request.ip),
    }),
  );
}
