import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/** The directives of a Content-Security-Policy header, by name. */
function directivesOf(policy: string | null): Record<string, string> {
  return Object.fromEntries(
    (policy ?? '')
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name !== undefined && name !== '')
      .map(([name, ...values]) => [name, values.join(' ')]),
  );
}

describe(`the API reference at /api/docs (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves a page that loads Swagger UI and its own start script from this server, under a policy of its own', async () => {
    const response = await fetch(`${server.baseUrl}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(sources).toHaveLength(3);
    for (const source of sources) expect(source).toMatch(/^\/api\/docs\//);
    expect(html).not.toMatch(/<script>|<style>|\son\w+=/);

    const policy = directivesOf(response.headers.get('content-security-policy'));
    expect(policy).toMatchObject({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'frame-ancestors': "'none'",
    });
    expect(policy['connect-src']).toContain("'self'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');

    for (const source of sources) {
      const file = await fetch(`${server.baseUrl}${source}`);
      expect(file.status, source).toBe(200);
      expect(file.headers.get('content-type'), source).toMatch(/^text\/(css|javascript)/);
      expect(directivesOf(file.headers.get('content-security-policy')), source).toEqual(policy);
      expect((await file.text()).length, source).toBeGreaterThan(0);
    }
    const start = await (await fetch(`${server.baseUrl}/api/docs/start.js`)).text();
    expect(start).toContain("url: '/api/docs/openapi.json'");
  });

  it('sends the Swagger UI bundle compressed when the browser accepts it, to be kept for good', async () => {
    const html = await (await fetch(`${server.baseUrl}/api/docs`)).text();
    const bundle = /src="([^"]+swagger-ui-bundle\.js)"/.exec(html)?.[1];
    expect(bundle).toBeDefined();
    const plain = await fetch(`${server.baseUrl}${bundle}`, { headers: { 'accept-encoding': 'identity' } });
    const plainText = await plain.text();
    expect(plain.headers.get('cache-control')).toContain('immutable');
    expect(plainText).toContain('SwaggerUIBundle');

    const gzipped = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      request(`${server.baseUrl}${bundle}`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }),
        );
      })
        .on('error', reject)
        .end();
    });
    expect(gzipped.encoding).toBe('gzip');
    expect(gunzipSync(gzipped.body).toString('utf8')).toBe(plainText);
  });

  it("leaves the product's pages and the API's answers under their own policies", async () => {
    const page = await fetch(`${server.baseUrl}/c/`);
    expect(directivesOf(page.headers.get('content-security-policy'))['script-src']).toBe("'self'");
    expect(directivesOf(page.headers.get('content-security-policy'))['default-src']).toBe("'self'");
    const document = await fetch(`${server.baseUrl}/api/docs/openapi.json`);
    expect(directivesOf(document.headers.get('content-security-policy'))).toEqual({
      'default-src': "'none'",
      'frame-ancestors': "'none'",
    });
  });
});
