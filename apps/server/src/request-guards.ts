import { errorBodySchema } from '@entry/domain';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Config } from './config.ts';
import { refuse } from './refusals.ts';

/**
 * State-changing calls refuse cross-site requests (docs/rules.md#security): a browser names
 * another site in `Sec-Fetch-Site` or `Origin`. A request with neither (curl, a server) is not a
 * browser acting for someone else and goes through. Input holding a NUL character is refused, and
 * only JSON bodies are parsed, before any route sees the request.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `true` for a call other sites may post (the RFC 8058 one-click unsubscribe). */
    crossSiteAllowed?: boolean;
  }
}

const stateChangingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const tenantLabel = /^[a-z0-9-]+$/;

/** The product's own origins: the bare domain, the apps host and every tenant host. */
function isOwnOrigin(config: Pick<Config, 'publicScheme' | 'publicDomain' | 'publicPort'>, origin: string) {
  const schemePrefix = `${config.publicScheme}://`;
  const hostSuffix = `${config.publicDomain}${config.publicPort === '' ? '' : `:${config.publicPort}`}`;
  const value = origin.toLowerCase();
  if (!value.startsWith(schemePrefix)) return false;
  const host = value.slice(schemePrefix.length);
  if (host === hostSuffix) return true;
  if (!host.endsWith(`.${hostSuffix}`)) return false;
  return tenantLabel.test(host.slice(0, -hostSuffix.length - 1));
}

function methodsOf(method: string | string[]): string[] {
  return Array.isArray(method) ? method : [method];
}

/**
 * Adds the refusal to every state-changing route, and 403, 413 and 415 to the answers its OpenAPI
 * entry lists (a body too large, or other than JSON, is refused before the route runs). Call before
 * the routes are registered.
 */
export function installCrossSiteGuard(app: FastifyInstance, config: Config): void {
  const refuseCrossSite: onRequestHookHandler = (request, _reply, done) => {
    const { origin } = request.headers;
    const crossSite =
      request.headers['sec-fetch-site'] === 'cross-site' ||
      (origin !== undefined && !isOwnOrigin(config, origin));
    done(crossSite ? refuse('crossSite') : undefined);
  };

  app.addHook('onRoute', (route) => {
    if (!methodsOf(route.method).some((method) => stateChangingMethods.has(method))) return;
    const guarded = route.config?.crossSiteAllowed !== true;
    const response = route.schema?.response;
    if (route.schema !== undefined && typeof response === 'object' && response !== null) {
      // A copy: routes may share one response object, and only some of them are guarded.
      route.schema = {
        ...route.schema,
        response: {
          413: errorBodySchema,
          415: errorBodySchema,
          ...(guarded ? { 403: errorBodySchema } : {}),
          ...response,
        },
      };
    }
    if (guarded) route.onRequest = [refuseCrossSite, ...hooksOf(route.onRequest)];
  });
}

function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** The dotted path of the first string (or key) holding a NUL character, or undefined. */
function fieldWithNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const itemPath = path === '' ? key : `${path}.${key}`;
    if (key.includes('\u0000')) return itemPath;
    const found = fieldWithNul(item, itemPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** PostgreSQL text cannot hold NUL: such input is refused as bad input before any query sees it. */
export function installNulGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    for (const part of [request.params, request.query, request.body]) {
      const field = fieldWithNul(part, '');
      if (field !== undefined) {
        done(refuse('nulCharacter', { fields: [field || 'body'] }));
        return;
      }
    }
    done();
  });
}

/**
 * Only JSON on JSON calls: Fastify's own text/plain parser goes; the one-click unsubscribe adds the
 * types mail providers send in a context of its own. A POST without a body is accepted with or
 * without `Content-Type: application/json`.
 */
export function installJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  const defaultJsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    defaultJsonParser(request, text, (error, parsed) => {
      if (error) done(refuse('invalidJson'), undefined);
      else done(null, parsed);
    });
  });
}
