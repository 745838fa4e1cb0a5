import { errorBodySchema } from '@entry/domain';
import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { type Config, publicOrigin } from './config.ts';
import { probePaths } from './dependency-outages.ts';
import { refreshCookieName } from './routes/session-http.ts';

/**
 * The OpenAPI document served at `/api/docs/openapi.json` and read by the reference page at
 * `/api/docs`. Each route gives its summary, tags, schemas and, where a session is involved, its
 * security; `describeOperation` adds what every operation has in common.
 */

/** `POST /api/auth/v1/consumer/sign-in/{x}` -> `postConsumerSignInByX`: stable and unique per route. */
function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\/(auth\/)?(v1\/)?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .flatMap((segment) => {
      const param = /^[{:](\w+)}?$/.exec(segment);
      return param?.[1] === undefined ? segment.split(/[^A-Za-z0-9]+/) : ['by', param[1]];
    })
    .filter((word) => word !== '');
  const capitalised = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return [method.toLowerCase(), ...capitalised].join('');
}

/**
 * Every operation gets an operationId, `security: []` unless the route names its sessions, and
 * the error bodies any call can answer: 400 (input refused before the route runs), 500, and 503
 * while the database is away (every call but the probes).
 */
const describeOperation: SwaggerTransform = (input) => {
  const { schema, url, route } = input;
  if (schema === undefined || schema === null || schema.hide === true) return jsonSchemaTransform(input);
  const method = Array.isArray(route.method) ? (route.method[0] ?? 'GET') : route.method;
  const response = (schema.response ?? {}) as Record<string, unknown>;
  const described = {
    ...schema,
    operationId: schema.operationId ?? operationIdOf(method, url),
    security: schema.security ?? [],
    response: {
      400: errorBodySchema,
      500: errorBodySchema,
      ...(probePaths.has(url) ? {} : { 503: errorBodySchema }),
      ...response,
    },
  };
  const transformed = jsonSchemaTransform({ ...input, schema: described });
  const answers = transformed.schema.response as Record<string, unknown>;
  // A route with no schema of its success answers with a file (a tenant's logo).
  if (!Object.keys(answers).some((status) => status.startsWith('2'))) answers[200] = fileAnswer;
  return transformed;
};

const fileAnswer = {
  description: 'The file, of the type `Content-Type` names.',
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
};

const retryAfterHeader = {
  description: 'Seconds to wait before trying again.',
  schema: { type: 'integer', minimum: 1 },
};

type ResponsesByPath = Record<string, Record<string, { responses?: Record<string, { headers?: unknown }> }>>;

/**
 * Every 429, and the 503 of a database outage, says `Retry-After`, which the schemas of bodies
 * cannot; a probe's 503 says what is wrong instead.
 */
function withRetryAfter(paths: ResponsesByPath): ResponsesByPath {
  for (const [url, operations] of Object.entries(paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        if (status === '429' || (status === '503' && !probePaths.has(url))) {
          answer.headers = { 'Retry-After': retryAfterHeader };
        }
      }
    }
  }
  return paths;
}

export function openApiOptions(config: Config): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Entry and sign-in API',
        description:
          'Every call the server answers (rules: docs/rules.md#calls). Refusals answer the error body ' +
          '(`errorCode`, `message`, `errors`); a 429 or 503 says in `Retry-After` when to try again.',
        version: '1.0.0',
      },
      servers: [{ url: publicOrigin(config), description: 'This deployment' }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'The access token of a sign-in (`accessToken`).',
          },
          refreshCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: refreshCookieName,
            description:
              'The refresh token, set as an HttpOnly cookie on the scope path by every sign-in; ' +
              'a `refreshToken` in the JSON body does instead.',
          },
        },
      },
    },
    transform: describeOperation,
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const document = documentObject.openapiObject;
      return { ...document, paths: withRetryAfter((document.paths ?? {}) as ResponsesByPath) };
    },
  };
}
