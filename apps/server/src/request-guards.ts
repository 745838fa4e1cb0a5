import { errorBodySchema } from '@entry/domain';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Config } from './config.ts';
import { refuse } from './refusals.ts';

/**
 * State-changing calls refuse cross-site requests (docs/rules.md#security): a browser names
 * another site in `Sec-Fetch-Site` or `Origin`. A request with neither (curl, a server) is not a
 * browser acting for someone else and goes through.
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
export function isOwnOrigin(
  config: Pick<Config, 'publicScheme' | 'publicDomain' | 'publicPort'>,
  origin: string,
) {
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
 * Adds the refusal to every state-changing route, and 403 and 415 to the answers its OpenAPI entry
 * lists (a body other than JSON is refused before the route runs). Call before the routes are
 * registered.
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
        response: { 415: errorBodySchema, ...(guarded ? { 403: errorBodySchema } : {}), ...response },
      };
    }
    if (guarded) route.onRequest = [refuseCrossSite, ...hooksOf(route.onRequest)];
  });
}

function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
