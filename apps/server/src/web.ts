import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import {
  type AppConfig,
  appConfigSchema,
  type Language,
  languageSchema,
  tenantSubdomainOf,
} from '@entry/domain';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Config } from './config.ts';
import type { PageOrganization } from './services/access.ts';
import { escapeHtml } from './services/html.ts';

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

/** JSON for a `<script type="application/json">`: without `<` or `>`, no text in it can end the script. */
function jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e');
}

/** `<script type="application/json" id="app-config">`: data, never executed, safe inside HTML. */
export function injectAppConfig(indexHtml: string, appConfig: AppConfig): string {
  const tag = `<script type="application/json" id="app-config">${jsonInHtml(appConfig)}</script>`;
  return indexHtml.includes('</head>') ? indexHtml.replace('</head>', `${tag}</head>`) : `${tag}${indexHtml}`;
}

/** The organization of a (lower-case) subdomain, or null for a host no organization uses. */
export type OrganizationOfSubdomain = (subdomain: string) => Promise<PageOrganization | null>;

/**
 * The organization's name in the page's `<title>` and the header's name, so the first paint of a
 * tenant's page says who is writing before the app has loaded, and the organization as data
 * (`<script type="application/json" id="organization">`) so the app's first render keeps it.
 */
export function injectOrganization(indexHtml: string, organization: PageOrganization): string {
  const name = escapeHtml(organization.name);
  const json = jsonInHtml({
    subdomain: organization.subdomain,
    name: organization.name,
    defaultLanguage: organization.defaultLanguage,
    debtCollector: organization.debtCollector,
  });
  return indexHtml
    .replace(/<title>[^<]*<\/title>/, () => `<title>${name}</title>`)
    .replace(
      /(<span class="brand__name">)[^<]*(<\/span>)/,
      (_match, open: string, close: string) => `${open}${name}${close}`,
    )
    .replace('</head>', () => `<script type="application/json" id="organization">${json}</script></head>`);
}

/** The page's words before the app has loaded, in the languages other than index.html's English. */
const noscriptTexts: Record<Exclude<Language, 'en'>, string> = {
  es: 'Este sitio necesita JavaScript. Actívelo y vuelva a cargar la página.',
};

/** `<html lang>` and the words of the first paint in `language`, so a Spanish reader's page starts in Spanish. */
function injectLanguage(indexHtml: string, language: Language): string {
  if (language === 'en') return indexHtml;
  return indexHtml
    .replace(/<html lang="[^"]*">/, `<html lang="${language}">`)
    .replace(/(<noscript>)[^<]*(<\/noscript>)/, (_match, open: string, close: string) => {
      return `${open}${noscriptTexts[language]}${close}`;
    });
}

/** The first of the languages a browser prefers (`Accept-Language`, by weight) that the pages speak. */
export function acceptedLanguage(acceptLanguage: string | undefined): Language | null {
  const weighted = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...parameters] = part.trim().split(';');
      const weight = parameters.map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1]).find(Boolean);
      return {
        language: languageSchema.safeParse(tag.trim().slice(0, 2).toLowerCase()),
        weight: Number(weight ?? 1),
      };
    })
    .filter(({ language, weight }) => language.success && weight > 0);
  const best = weighted.reduce<(typeof weighted)[number] | undefined>(
    (chosen, candidate) => (chosen === undefined || candidate.weight > chosen.weight ? candidate : chosen),
    undefined,
  );
  return best?.language.data ?? null;
}

/**
 * The language a tenant's page most likely shows, as the app decides it at start (the tab's own
 * choice aside, which only the browser knows): a letter's `?lang=`, the browser's, the organization's.
 */
function pageLanguageOf(request: FastifyRequest, organization: PageOrganization): Language {
  const requested = languageSchema.safeParse(new URL(request.url, 'http://page').searchParams.get('lang'));
  if (requested.success) return requested.data;
  return acceptedLanguage(request.headers['accept-language']) ?? organization.defaultLanguage;
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

/** Pages of tenants' hosts, compressed once per organization's details and path prefix, kept up to this many. */
const maxTenantPages = 1_000;

/**
 * Serves apps/web/dist on every host with a fallback to index.html for the app's own routes. The
 * public configuration goes into index.html once, at start. Every other text file is served as
 * the `.br` or `.gz` the build wrote next to it (apps/web/vite-plugins/precompress.ts) when the
 * browser accepts it: under a slow mobile connection the uncompressed JavaScript held back the
 * first paint (docs/rules.md#budgets, Lighthouse). A page under a path prefix of the build's
 * route-preloads.json gets its lazily loaded files announced, and its self-contained chunks started, too.
 * On a tenant's host the page names the organization (`organizationOf`, from the read cache).
 */
export async function registerWeb(
  app: FastifyInstance,
  config: Config,
  organizationOf: OrganizationOfSubdomain,
): Promise<(request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>> {
  const indexFile = path.join(config.webDistDir, 'index.html');
  const built = existsSync(indexFile);
  const indexHtml = built
    ? injectAppConfig(readFileSync(indexFile, 'utf8'), appConfigOf(config))
    : notBuiltPage;
  const html = compressHtml(indexHtml);
  const preloads = built ? readRoutePreloads(config.webDistDir) : {};
  const prefixes = Object.keys(preloads);
  const htmlOf = (prefix: string | undefined) =>
    prefix === undefined
      ? indexHtml
      : injectPreloads(indexHtml, preloads[prefix] ?? { preload: [], start: [] });
  const htmlByPrefix = new Map(prefixes.map((prefix) => [prefix, compressHtml(htmlOf(prefix))]));
  const tenantPages = new Map<string, HtmlVariants>();
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

  /** The page of a tenant's host, made and compressed the first time its name, prefix and language are asked for. */
  function tenantPage(
    organization: PageOrganization,
    prefix: string | undefined,
    language: Language,
  ): HtmlVariants {
    const key = JSON.stringify([organization, prefix ?? null, language]);
    let page = tenantPages.get(key);
    if (page === undefined) {
      if (tenantPages.size >= maxTenantPages) tenantPages.clear();
      page = compressHtml(injectLanguage(injectOrganization(htmlOf(prefix), organization), language));
      tenantPages.set(key, page);
    }
    return page;
  }

  /** The host's organization; the product's page when none, or when it cannot be read just now. */
  async function organizationOfHost(request: FastifyRequest): Promise<PageOrganization | null> {
    // Fastify takes `X-Forwarded-Host` into the hostname only from a trusted proxy (TRUST_PROXY).
    const subdomain = tenantSubdomainOf(request.hostname, config.publicDomain);
    if (!built || subdomain === null) return null;
    try {
      return await organizationOf(subdomain);
    } catch (error) {
      request.log.warn({ err: error }, 'the page went out without the organization: its lookup failed');
      return null;
    }
  }

  return async (request, reply) => {
    const prefix = preloadPrefixOf(request.url.split('?')[0] ?? '', prefixes);
    const organization = await organizationOfHost(request);
    const page =
      organization === null
        ? ((prefix === undefined ? undefined : htmlByPrefix.get(prefix)) ?? html)
        : tenantPage(organization, prefix, pageLanguageOf(request, organization));
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    // Each host gets its own page. Caches key a response by its whole address, host included, so
    // one host's page is never another's; no-cache makes every use ask again, so a new name shows.
    reply
      .status(200)
      .header('Cache-Control', 'no-cache')
      .header('Vary', organization === null ? 'Accept-Encoding' : 'Accept-Encoding, Accept-Language');
    if (encoding !== null) reply.header('Content-Encoding', encoding);
    return reply.type('text/html; charset=utf-8').send(encoding === null ? page.plain : page[encoding]);
  };
}
