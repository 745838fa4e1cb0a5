import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

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

/**
 * Sets helmet's headers on every answer, as the global @fastify/helmet plugin did: the page's on
 * the web app and its files, the API's under `/api/`.
 */
export function installSecurityHeaders(
  app: FastifyInstance,
  options: { page: Readonly<HelmetOptions>; api: Readonly<HelmetOptions> },
): void {
  const pageHeaders = helmetHeaders(options.page);
  const apiHeaders = helmetHeaders(options.api);
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(request.url.startsWith('/api/') ? apiHeaders : pageHeaders);
    done();
  });
}
