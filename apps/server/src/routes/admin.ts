import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { registerSecondFactorRoutes } from './second-factors.ts';
import { registerStaffPasskeyRoutes } from './staff-passkeys.ts';
import { registerStaffPasswordRoutes } from './staff-routes.ts';

export function adminRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    registerStaffPasswordRoutes(app, ctx, 'admin');
    registerSecondFactorRoutes(app, ctx, 'admin');
    registerStaffPasskeyRoutes(app, ctx, 'admin');
  };
}
