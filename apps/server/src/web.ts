import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type AppConfig, appConfigSchema } from '@entry/domain';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from './config.ts';

export function appConfigOf(config: Config): AppConfig {
  return appConfigSchema.parse({
    domain: config.publicDomain,
    scheme: config.publicScheme,
    port: config.publicPort,
    adminDomainMarkers: config.adminDomainMarkers,
    dashDomainMarkers: config.dashDomainMarkers,
    staffIdleMinutes: config.staffIdleMinutes,
  });
}

/** `<script type="application/json" id="app-config">`: data, never executed, safe inside HTML. */
export function injectAppConfig(indexHtml: string, appConfig: AppConfig): string {
  const json = JSON.stringify(appConfig).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e');
  const tag = `<script type="application/json" id="app-config">${json}</script>`;
  return indexHtml.includes('</head>') ? indexHtml.replace('</head>', `${tag}</head>`) : `${tag}${indexHtml}`;
}

const builtFileSchema = z.string().regex(/^\/[\w./-]+$/);

/**
 * What apps/web/vite-plugins/route-preloads.ts writes: per path prefix, the files to preload and
 * the self-contained chunks to start as module scripts.
 */
const routePreloadsSchema = z.record(
  z.string().startsWith('/'),
  z.object({ preload: z.array(builtFileSchema), start: z.array(builtFileSchema) }),
);
type RoutePreloads = z.infer<typeof routePreloadsSchema>;
export type RouteFiles = RoutePreloads[string];

function readRoutePreloads(webDistDir: string): RoutePreloads {
  const file = path.join(webDistDir, 'route-preloads.json');
  return existsSync(file) ? routePreloadsSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
}

/**
 * Announces a route's lazy scripts and styles, so the browser fetches them with the entry chunk,
 * and starts self-contained chunks as `async` scripts. All at low priority: the first paint needs
 * none, and Lighthouse counts a high-priority script arriving before it as render-blocking.
 */
export function injectPreloads(indexHtml: string, files: RouteFiles): string {
  const fetched = 'fetchpriority="low" crossorigin';
  const scripts = files.start.map((file) => `<script type="module" async ${fetched} src="${file}"></script>`);
  const links = files.preload.map((file) =>
    file.endsWith('.css')
      ? `<link rel="preload" as="style" ${fetched} href="${file}">`
      : `<link rel="modulepreload" ${fetched} href="${file}">`,
  );
  return indexHtml.replace('</head>', `${[...scripts, ...links].join('')}</head>`);
}

/** The prefix of `pathname` with the most specific preloads, if any. */
export function preloadPrefixOf(pathname: string, prefixes: readonly string[]): string | undefined {
  return prefixes
    .filter((prefix) => pathname.startsWith(prefix))
    .reduce<string | undefined>(
      (longest, prefix) => (prefix.length > (longest?.length ?? -1) ? prefix : longest),
      undefined,
    );
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Web app not built</title></head>
<body><main><h1>The web app is not built yet</h1>
<p>The API is running. To get the pages, run <code>npm run build -w apps/web</code> (or <code>npm start</code>, which builds it) and restart the server.</p>
</main></body></html>`;

interface HtmlVariants {
  plain: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** index.html changes only at start (the configuration goes in), so it is compressed once, then. */
function compressHtml(html: string): HtmlVariants {
  const plain = Buffer.from(html, 'utf8');
  return {
    plain,
    br: brotliCompressSync(plain, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
    }),
    gzip: gzipSync(plain, { level: constants.Z_BEST_COMPRESSION }),
  };
}

/** The encoding to send: brotli, then gzip, when the request accepts it (a q=0 refuses it). */
export function preferredEncoding(acceptEncoding: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .toLowerCase()
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, ...parameters]) => !parameters.some((parameter) => /^\s*q=0(?:\.0*)?\s*$/.test(parameter)))
      .map(([coding]) => coding?.trim()),
  );
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

/**
 * Serves apps/web/dist on every host with a fallback to index.html for the app's own routes. The
 * public configuration goes into index.html once, at start. Every other text file is served as
 * the `.br` or `.gz` the build wrote next to it (apps/web/vite-plugins/precompress.ts) when the
 * browser accepts it: under a slow mobile connection the uncompressed JavaScript held back the
 * first paint (DESIGN.md section 8, Lighthouse). A page under a path prefix of the build's
 * route-preloads.json gets its lazily loaded files announced, and its self-contained chunks started, too.
 */
export async function registerWeb(
  app: FastifyInstance,
  config: Config,
): Promise<(request: FastifyRequest, reply: FastifyReply) => FastifyReply> {
  const indexFile = path.join(config.webDistDir, 'index.html');
  const built = existsSync(indexFile);
  const indexHtml = built
    ? injectAppConfig(readFileSync(indexFile, 'utf8'), appConfigOf(config))
    : notBuiltPage;
  const html = compressHtml(indexHtml);
  const preloads = built ? readRoutePreloads(config.webDistDir) : {};
  const prefixes = Object.keys(preloads);
  const htmlByPrefix = new Map(
    Object.entries(preloads).map(([prefix, files]) => [
      prefix,
      compressHtml(injectPreloads(indexHtml, files)),
    ]),
  );
  if (!built)
    app.log.warn({ webDistDir: config.webDistDir }, 'web app not built: serving a placeholder page');

  if (built) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      prefix: '/',
      index: false,
      // One route per built file, listed at start: a page's path (`/c/verify-identity`) then goes
      // straight to the index.html fallback, where the catch-all route checked the path's spelling
      // against the directory with a readdir and several stats first, on every page load.
      wildcard: false,
      preCompressed: true,
      // index.html is only ever served with the configuration in it: it gets no route of its own
      // and falls back to the page that has it, as every path without a built file does.
      globIgnore: ['index.html'],
      setHeaders: (response, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        response.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  return (request, reply) => {
    const prefix = preloadPrefixOf(request.url.split('?')[0] ?? '', prefixes);
    const page = (prefix === undefined ? undefined : htmlByPrefix.get(prefix)) ?? html;
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    reply.status(200).header('Cache-Control', 'no-cache').header('Vary', 'Accept-Encoding');
    if (encoding !== null) reply.header('Content-Encoding', encoding);
    return reply.type('text/html; charset=utf-8').send(encoding === null ? page.plain : page[encoding]);
  };
}
