import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';

/** The public half of a signing key (RFC 8037: an Ed25519 key as an OKP JWK). */
const publicJwkSchema = z.object({
  kty: z.string().describe('`OKP`'),
  crv: z.string().describe('`Ed25519`'),
  x: z.string().describe('The public key, base64url.'),
  kid: z.string().describe('The key id an access token names in its header.'),
  alg: z.literal('EdDSA'),
  use: z.literal('sig'),
});

export function jwksRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/auth/.well-known/jwks.json',
      {
        schema: {
          summary: 'The public keys that verify access tokens',
          description:
            'Every key whose access tokens may still be valid, a retired one included until its last token ' +
            'has expired. Cached for five minutes.',
          tags: ['keys'],
          response: { 200: z.object({ keys: z.array(publicJwkSchema) }) },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'public, max-age=300');
        return ctx.keys.jwks();
      },
    );
  };
}
