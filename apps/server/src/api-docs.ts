import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { preferredEncoding } from './web.ts';

/**
 * The API reference at `/api/docs`: Swagger UI from the swagger-ui-dist package, served by this
 * server (no CDN), reading `/api/docs/openapi.json` (decision record 027). Its files are read and
 * compressed on the first request for them, off the event loop, so a server nobody reads the
 * reference on holds none of them.
 */

export const apiDocsPath = '/api/docs';

const swaggerUiDirectory = path.dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);
const swaggerUiVersion = (
  JSON.parse(readFileSync(path.join(swaggerUiDirectory, 'package.json'), 'utf8')) as { version: string }
).version;
/** The package's version is in its files' path, so a browser may keep them for good. */
const filesPath = `${apiDocsPath}/files/${swaggerUiVersion}`;

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Entry and sign-in API reference</title>
<link rel="stylesheet" href="${filesPath}/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="${filesPath}/swagger-ui-bundle.js"></script>
<script src="${apiDocsPath}/start.js"></script>
</body></html>
`;

// A file of its own rather than an inline script, so the policy needs no 'unsafe-inline' scripts;
// no validator badge, which would load from another site.
const start = `SwaggerUIBundle({
  url: '${apiDocsPath}/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  deepLinking: true,
  validatorUrl: null,
});
`;

const packageFiles = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const;

interface Encoded {
  plain: Buffer;
  br: Buffer;
  gzip: Buffer;
}

async function encode(plain: Buffer): Promise<Encoded> {
  const [br, gzipped] = await Promise.all([
    promisify(brotliCompress)(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
    promisify(gzip)(plain, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  return { plain, br, gzip: gzipped };
}

/** The encoded file, made once: the first request starts it, later ones reuse it (or retry a failure). */
function encodedOnce(load: () => Promise<Buffer>): () => Promise<Encoded> {
  let encoded: Promise<Encoded> | undefined;
  return () => {
    encoded ??= load()
      .then(encode)
      .catch((error: unknown) => {
        encoded = undefined;
        throw error;
      });
    return encoded;
  };
}

export function registerApiDocs(app: FastifyInstance): void {
  const hidden = { schema: { hide: true } } as const;

  const serve = (url: string, type: string, cacheControl: string, content: () => Promise<Encoded>) =>
    app.get(url, hidden, async (request, reply) => {
      const encoded = await content();
      const encoding = preferredEncoding(request.headers['accept-encoding']);
      reply.header('Cache-Control', cacheControl).header('Vary', 'Accept-Encoding').type(type);
      if (encoding !== null) reply.header('Content-Encoding', encoding);
      return reply.send(encoding === null ? encoded.plain : encoded[encoding]);
    });

  serve(
    apiDocsPath,
    'text/html; charset=utf-8',
    'no-cache',
    encodedOnce(async () => Buffer.from(page)),
  );
  serve(
    `${apiDocsPath}/start.js`,
    'text/javascript; charset=utf-8',
    'no-cache',
    encodedOnce(async () => Buffer.from(start)),
  );
  for (const [file, type] of Object.entries(packageFiles)) {
    serve(
      `${filesPath}/${file}`,
      type,
      'public, max-age=31536000, immutable',
      encodedOnce(() => readFile(path.join(swaggerUiDirectory, file))),
    );
  }
}
