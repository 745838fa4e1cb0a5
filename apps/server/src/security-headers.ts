import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { apiDocsPath } from './api-docs.ts';
import { type Config, publicOrigin } from './config.ts';

/**
 * Helmet's headers, worked out once. They depend only on the configuration, while
 * @fastify/helmet builds helmet's middleware again on every request (parsing the policy each
 * time): several percent of the CPU of a cached read.
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Record<string, string> {
  const headers: Record<string, string> = {};
  const collector = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, collector as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

export type HeaderKind = 'page' | 'api' | 'docs';

/** The API reference's page and files are a document of their own; its OpenAPI JSON is an API answer. */
export function headerKindOf(url: string): HeaderKind {
  if (!url.startsWith('/api/')) return 'page';
  if (url.startsWith(apiDocsPath) && !url.startsWith(`${apiDocsPath}/openapi.json`)) return 'docs';
  return 'api';
}

/**
 * Sets helmet's headers on every answer, as the global @fastify/helmet plugin did: the page's on
 * the web app and its files, the API's under `/api/`, and the reference's on `/api/docs`.
 */
export function installSecurityHeaders(
  app: FastifyInstance,
  options: Readonly<Record<HeaderKind, Readonly<HelmetOptions>>>,
): void {
  const headers: Record<HeaderKind, Record<string, string>> = {
    page: helmetHeaders(options.page),
    api: helmetHeaders(options.api),
    docs: helmetHeaders(options.docs),
  };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(headers[headerKindOf(request.url)]);
    done();
  });
}

function contentSecurityPolicy() {
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      workerSrc: ["'self'"],
      manifestSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  };
}

/**
 * The API reference (Swagger UI) runs only its own scripts and styles from this server; it fetches
 * the OpenAPI document, and its "Try it out" calls the API at the document's server.
 */
function apiDocsContentSecurityPolicy(config: Config) {
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'", publicOrigin(config)],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  };
}

/** The headers of each kind of answer: pages, API answers and the API reference. */
export function securityHeaderOptions(config: Config): Record<HeaderKind, HelmetOptions> {
  const bothKinds = {
    referrerPolicy: { policy: 'no-referrer' },
    hsts: config.publicScheme === 'https' ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    crossOriginEmbedderPolicy: false,
    frameguard: { action: 'deny' },
  } as const;
  return {
    page: { ...bothKinds, contentSecurityPolicy: contentSecurityPolicy() },
    // An API answer is JSON, never a document (OWASP's REST Security Cheat Sheet): of the page's
    // policy only frame-ancestors means anything, and headers that only steer how a browser
    // treats a document are left off.
    api: {
      ...bothKinds,
      contentSecurityPolicy: {
        useDefaults: false,
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      crossOriginOpenerPolicy: false,
      originAgentCluster: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
    },
    docs: { ...bothKinds, contentSecurityPolicy: apiDocsContentSecurityPolicy(config) },
  };
}
