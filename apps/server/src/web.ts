import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type AppConfig, appConfigSchema } from '@entry/domain';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from './config.ts';

export function appConfigOf(config: Config): AppConfig {
  return appConfigSchema.parse({
    domain: config.publicDomain,
    scheme: config.publicScheme,
    port: config.publicPort,
    adminDomainMarkers: config.adminDomainMarkers,
    dashDomainMarkers: config.dashDomainMarkers,
  });
}

/** `<script type="application/json" id="app-config">`: data, never executed, safe inside HTML. */
export function injectAppConfig(indexHtml: string, appConfig: AppConfig): string {
  const json = JSON.stringify(appConfig).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e');
  const tag = `<script type="application/json" id="app-config">${json}</script>`;
  return indexHtml.includes('</head>') ? indexHtml.replace('</head>', `${tag}</head>`) : `${tag}${indexHtml}`;
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Web app not built</title></head>
<body><main><h1>The web app is not built yet</h1>
<p>The API is running. To get the pages, run <code>npm run build -w apps/web</code> (or <code>npm start</code>, which builds it) and restart the server.</p>
</main></body></html>`;

/**
 * Serves apps/web/dist on every host with a fallback to index.html for the app's own routes. The
 * public configuration goes into index.html once, at start.
 */
export async function registerWeb(
  app: FastifyInstance,
  config: Config,
): Promise<(reply: FastifyReply) => FastifyReply> {
  const indexFile = path.join(config.webDistDir, 'index.html');
  const built = existsSync(indexFile);
  const indexHtml = built
    ? injectAppConfig(readFileSync(indexFile, 'utf8'), appConfigOf(config))
    : notBuiltPage;
  if (!built)
    app.log.warn({ webDistDir: config.webDistDir }, 'web app not built: serving a placeholder page');

  if (built) {
    await app.register(fastifyStatic, {
      root: config.webDistDir,
      prefix: '/',
      index: false,
      wildcard: true,
      // index.html is only ever served with the configuration in it; directories fall back to it.
      allowedPath: (pathname) => pathname !== '/index.html' && !pathname.endsWith('/'),
      setHeaders: (response, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        response.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  return (reply) =>
    reply.status(200).header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
}
