import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateTenant } from '../src/services/tenants.ts';
import { createTenant } from './consumer-fixtures.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

/** The parts of apps/web/index.html the server rewrites on a tenant's host. */
const indexHtml = `<!doctype html><html lang="en"><head><meta charset="UTF-8" /><title>Account Access</title></head>
<body><noscript>This site needs JavaScript. Please turn it on and reload the page.</noscript><div id="root"><header class="auth-header"><a class="brand" href="/"><span class="brand__name">Account Access</span></a></header></div></body></html>`;

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];
const languageOf = (html: string) => /<html lang="([^"]*)">/.exec(html)?.[1];
const noscriptOf = (html: string) => /<noscript>([^<]*)<\/noscript>/.exec(html)?.[1];
const headerNameOf = (html: string) => /<span class="brand__name">([^<]*)<\/span>/.exec(html)?.[1];
const organizationOf = (html: string) => {
  const json = /<script type="application\/json" id="organization">(.+?)<\/script>/.exec(html)?.[1];
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
};

describe(`index.html names the organization of a tenant's host in its first paint (${databaseLabel})`, () => {
  let webDist: string;
  let server: TestServer;

  beforeAll(async () => {
    webDist = mkdtempSync(path.join(tmpdir(), 'entry-tenant-page-dist-'));
    writeFileSync(path.join(webDist, 'index.html'), indexHtml);
    server = await startTestServer({ webDistDir: webDist });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  /** A page asked for with this Host header (fetch sends the address's own host whatever it is given). */
  const page = (host: string, pathname = '/', headers: Record<string, string> = {}) =>
    new Promise<{ headers: Record<string, string | string[] | undefined>; text: string }>(
      (resolve, reject) => {
        const url = new URL(pathname, server.baseUrl);
        request(url, { headers: { ...headers, host } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const body = Buffer.concat(chunks);
            const br = response.headers['content-encoding'] === 'br';
            resolve({
              headers: response.headers,
              text: (br ? brotliDecompressSync(body) : body).toString('utf8'),
            });
          });
        })
          .on('error', reject)
          .end();
      },
    );

  it("puts the organization's name in the title and the header on its host, on every page", async () => {
    const name = server.demo.tenant.customerName;
    for (const pathname of ['/', '/c/verify-identity', `/${server.demo.identityTokens.postalCode}`]) {
      const html = (await page('sender.localhost:8080', pathname)).text;
      expect(titleOf(html)).toBe(name);
      expect(headerNameOf(html)).toBe(name);
      expect(organizationOf(html)).toEqual({
        subdomain: 'sender',
        name,
        defaultLanguage: 'en',
        debtCollector: false,
      });
    }
  });

  it.each([
    ['the apps host', 'apps.localhost:8080'],
    ['the bare domain', 'localhost:8080'],
    ['a host no organization uses', 'nobody-here.localhost:8080'],
  ])("keeps the product's name on %s", async (_label, host) => {
    const html = (await page(host)).text;
    expect(titleOf(html)).toBe('Account Access');
    expect(headerNameOf(html)).toBe('Account Access');
    expect(organizationOf(html)).toBeUndefined();
  });

  it("carries the organization's default language and debt-collector setting, a change showing at once", async () => {
    const tenant = await createTenant(server);
    const host = `${tenant.subdomain}.localhost:8080`;
    expect(organizationOf((await page(host)).text)).toMatchObject({
      defaultLanguage: 'en',
      debtCollector: false,
    });
    await updateTenant(server.ctx.db, server.ctx.clock, tenant.subdomain, {
      defaultLanguage: 'es',
      debtCollector: true,
    });
    expect(organizationOf((await page(host, '/c/')).text)).toMatchObject({
      defaultLanguage: 'es',
      debtCollector: true,
    });
  });

  it('escapes the name for HTML, and a renamed organization shows at once, compressed too', async () => {
    const tenant = await createTenant(server);
    const host = `${tenant.subdomain}.localhost:8080`;
    const name = `Smith & Sons <b>"Collections"</b> </script>`;
    expect(headerNameOf((await page(host)).text)).toBe(`Tenant ${tenant.id}`);
    await updateTenant(server.ctx.db, server.ctx.clock, tenant.subdomain, { name });

    const response = await page(host, '/c/', { 'accept-encoding': 'br' });
    expect(response.headers['content-encoding']).toBe('br');
    const html = response.text;
    const escaped = 'Smith &amp; Sons &lt;b&gt;&quot;Collections&quot;&lt;/b&gt; &lt;/script&gt;';
    expect(titleOf(html)).toBe(escaped);
    expect(headerNameOf(html)).toBe(escaped);
    expect(html).not.toContain('<b>');
    // The configuration's script and the organization's end where they should, not inside the name.
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(organizationOf(html)).toEqual({
      subdomain: tenant.subdomain,
      name,
      defaultLanguage: 'en',
      debtCollector: false,
    });
  });

  it("paints in the page's likely language: the letter's ?lang=, then the browser's, then the organization's", async () => {
    const tenant = await createTenant(server);
    const host = `${tenant.subdomain}.localhost:8080`;
    const spanishNoscript = 'Este sitio necesita JavaScript. Actívelo y vuelva a cargar la página.';
    const english = (await page(host, '/c/')).text;
    expect(languageOf(english)).toBe('en');
    expect(noscriptOf(english)).toBe('This site needs JavaScript. Please turn it on and reload the page.');

    const letter = (await page(host, `/${server.demo.identityTokens.postalCode}?lang=es`)).text;
    expect(languageOf(letter)).toBe('es');
    expect(noscriptOf(letter)).toBe(spanishNoscript);
    expect(languageOf((await page(host, '/c/?lang=xx', { 'accept-language': 'es-US' })).text)).toBe('es');

    const browser = (accept: string) =>
      page(host, '/c/', { 'accept-language': accept, 'accept-encoding': 'br' });
    expect(languageOf((await browser('es-US,es;q=0.9,en;q=0.8')).text)).toBe('es');
    expect(languageOf((await browser('en-US,en;q=0.9,es;q=0.8')).text)).toBe('en');
    expect(languageOf((await browser('fr-FR, en;q=0.5, es;q=0.7')).text)).toBe('es');
    expect(languageOf((await page(host, '/c/?lang=en', { 'accept-language': 'es' })).text)).toBe('en');

    await updateTenant(server.ctx.db, server.ctx.clock, tenant.subdomain, { defaultLanguage: 'es' });
    expect(languageOf((await browser('fr-FR')).text)).toBe('es');
    expect(languageOf((await browser('en-GB,fr;q=0.5')).text)).toBe('en');
  });

  it("keeps English on the product's hosts whatever the browser asks", async () => {
    const html = (await page('apps.localhost:8080', '/', { 'accept-language': 'es-US' })).text;
    expect(languageOf(html)).toBe('en');
  });

  it('is never one shared response: each use asks again, per host, encoding and language, with no validator to mix up', async () => {
    const { headers } = await page('sender.localhost:8080', '/c/verify-token');
    expect(headers['cache-control']).toBe('no-cache');
    expect(headers.vary).toBe('Accept-Encoding, Accept-Language');
    expect(headers.etag).toBeUndefined();
    expect(headers['last-modified']).toBeUndefined();
  });
});
