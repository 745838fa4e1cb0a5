import {
  consoleAccessSchema,
  consoleCustomerIdParamSchema,
  consoleInvitationResultSchema,
  consoleInvitationSchema,
  consoleManagerChangeSchema,
  consoleOrganizationCreateSchema,
  consoleOrganizationListSchema,
  consoleOrganizationSchema,
  consoleOrganizationUpdateSchema,
  consoleSearchQuerySchema,
  consoleStaffActions,
  consoleStaffListSchema,
  consoleStaffQuerySchema,
  consoleStaffUserIdSchema,
  consoleStaffUserSchema,
} from '@entry/domain';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import {
  actOnStaffUser,
  consoleAccessOf,
  consoleActorOf,
  createOrganization,
  inviteStaffUser,
  listOrganizations,
  listStaff,
  setManager,
  updateOrganization,
} from '../services/console.ts';
import { maxLogoBytes } from '../services/tenant-logo.ts';
import { principalOf, requireSession } from './session-http.ts';
import { errors } from './staff-routes.ts';

const base = '/api/console/v1';

const adminOnly = 'Admins only (else 403).';
const managersToo =
  "Admins for every organization; a customer manager for their own organization's customer users only " +
  '(another organization or an admin answers 404).';
const stepUpNote =
  'A change: needs a second factor used in the session within the last 15 minutes ' +
  '(else 403 with `stepUpRequired: true`); audited with the acting user.';

/** An organization's update carries a logo in base64: a third more than the logo's own bytes. */
const organizationUpdateBodyLimit = 2 * maxLogoBytes;

const actionSummaries: Record<(typeof consoleStaffActions)[number], string> = {
  disable: 'Disable a staff user: sign-in is refused and open sessions end',
  enable: 'Enable a disabled staff user again',
  unlock: 'Lift the lock after failed sign-ins',
  'reset-second-factors': "Remove a staff user's second factors; the user is mailed and their sessions end",
  'resend-invitation': 'Mail a new one-use link that sets the first password of a user who has not set one',
};

/** The operator console's calls: the same routes for admins and customer managers (one rule in the service). */
export function consoleRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const staffSession = requireSession(ctx, ['admin', 'customer']);
    const common = { config: { failureLimited: true as const }, preHandler: staffSession };
    const schemaBase = { tags: ['console'], security: [{ bearer: [] }] };
    const actorOf = (request: FastifyRequest) => consoleActorOf(ctx, principalOf(request));

    app.get(
      `${base}/access`,
      {
        preHandler: staffSession,
        schema: {
          ...schemaBase,
          summary: 'Whether the console serves the session: admins and customer managers',
          response: { 200: consoleAccessSchema, ...errors(401, 403) },
        },
      },
      async (request) => consoleAccessOf(ctx, principalOf(request)),
    );

    app.get(
      `${base}/organizations`,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'List the organizations, with their consumer and staff counts',
          description: adminOnly,
          querystring: consoleSearchQuerySchema,
          response: { 200: consoleOrganizationListSchema, ...errors(400, 401, 403) },
        },
      },
      async (request) => ({
        organizations: await listOrganizations(ctx, await actorOf(request), request.query.search),
      }),
    );

    app.post(
      `${base}/organizations`,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'Create an organization',
          description: `${adminOnly} ${stepUpNote}`,
          body: consoleOrganizationCreateSchema,
          response: { 200: consoleOrganizationSchema, ...errors(400, 401, 403, 409) },
        },
      },
      async (request) => createOrganization(ctx, await actorOf(request), request.body),
    );

    app.patch(
      `${base}/organizations/:customerId`,
      {
        ...common,
        bodyLimit: organizationUpdateBodyLimit,
        schema: {
          ...schemaBase,
          summary: "Change an organization's name, contact, logo and settings",
          description: `${adminOnly} ${stepUpNote}`,
          params: consoleCustomerIdParamSchema,
          body: consoleOrganizationUpdateSchema,
          response: { 200: consoleOrganizationSchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) =>
        updateOrganization(ctx, await actorOf(request), request.params.customerId, request.body),
    );

    app.get(
      `${base}/staff`,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'List and search staff users, with their status',
          description: managersToo,
          querystring: consoleStaffQuerySchema,
          response: { 200: consoleStaffListSchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => ({ users: await listStaff(ctx, await actorOf(request), request.query) }),
    );

    app.post(
      `${base}/staff`,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: 'Invite a staff user: the user is mailed a one-use link that sets the first password',
          description: `${managersToo} Only admins invite admins or managers. ${stepUpNote}`,
          body: consoleInvitationSchema,
          response: { 200: consoleInvitationResultSchema, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => inviteStaffUser(ctx, await actorOf(request), request.body),
    );

    for (const action of consoleStaffActions) {
      app.post(
        `${base}/staff/:userId/${action}`,
        {
          ...common,
          schema: {
            ...schemaBase,
            summary: actionSummaries[action],
            description: `${managersToo} ${stepUpNote}`,
            params: consoleStaffUserIdSchema,
            response: { 200: consoleStaffUserSchema, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => actOnStaffUser(ctx, await actorOf(request), request.params.userId, action),
      );
    }

    app.patch(
      `${base}/staff/:userId/manager`,
      {
        ...common,
        schema: {
          ...schemaBase,
          summary: "Give or take a customer user's manager role",
          description: `${adminOnly} ${stepUpNote}`,
          params: consoleStaffUserIdSchema,
          body: consoleManagerChangeSchema,
          response: { 200: consoleStaffUserSchema, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => setManager(ctx, await actorOf(request), request.params.userId, request.body.manager),
    );
  };
}
