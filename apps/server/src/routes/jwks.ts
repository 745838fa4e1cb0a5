import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';

export function jwksRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/.well-known/jwks.json', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=300');
      return ctx.keys.jwks();
    });
  };
}
