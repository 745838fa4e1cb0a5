import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { accessRoutes } from './access.ts';
import { adminRoutes } from './admin.ts';
import { consoleRoutes } from './console.ts';
import { consoleDataRoutes } from './console-data.ts';
import { consumerSignInRoutes } from './consumer-sign-in.ts';
import { customerRoutes } from './customer.ts';
import { emailSubscriptionRoutes } from './email-subscriptions.ts';
import { healthRoutes } from './health.ts';
import { identityTokenRoutes } from './identity-tokens.ts';
import { jwksRoutes } from './jwks.ts';
import { launchRoutes } from './launch.ts';
import { sessionRoutes } from './sessions.ts';

/** Every API area, one plugin each; a new area adds its line here. */
export const routePlugins: ((ctx: AppContext) => FastifyPluginAsyncZod)[] = [
  jwksRoutes,
  accessRoutes,
  adminRoutes,
  customerRoutes,
  launchRoutes,
  consoleDataRoutes,
  consoleRoutes,
  sessionRoutes,
  identityTokenRoutes,
  consumerSignInRoutes,
  emailSubscriptionRoutes,
  healthRoutes,
];
