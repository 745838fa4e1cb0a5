import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preloadPrefixOf } from '../src/web.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

const layoutFiles = ['/assets/consumer-layout-a1.js', '/assets/portal-b2.css'];
const verifyFiles = [...layoutFiles, '/assets/verify-pages-c3.js'];
const startedFiles = ['/assets/zod-d4.js'];

function preloadLinks(html: string): string[] {
  return [...html.matchAll(/<link rel="(?:modulepreload|preload)"[^>]*>/g)].map((match) => match[0]);
}

function startedScripts(html: string): string[] {
  return [...html.matchAll(/<script type="module" async[^>]*><\/script>/g)].map((match) => match[0]);
}

describe(`index.html announces the lazily loaded files of a route (${databaseLabel})`, () => {
  let webDist: string;
  let server: TestServer;

  beforeAll(async () => {
    webDist = mkdtempSync(path.join(tmpdir(), 'entry-preload-dist-'));
    writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><html lang="en"><head><title>Entry</title></head><body><div id="root"></div></body></html>',
    );
    writeFileSync(
      path.join(webDist, 'route-preloads.json'),
      JSON.stringify({
        '/c/': { preload: layoutFiles, start: startedFiles },
        '/c/verify-': { preload: verifyFiles, start: startedFiles },
      }),
    );
    server = await startTestServer({ webDistDir: webDist });
  });

  afterAll(async () => {
    await server.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it('preloads the scripts and styles of the most specific prefix at low priority, inside <head>', async () => {
    const response = await fetch(`${server.baseUrl}/c/verify-identity?from=letter`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(preloadLinks(html)).toEqual([
      '<link rel="modulepreload" fetchpriority="low" crossorigin href="/assets/consumer-layout-a1.js">',
      '<link rel="preload" as="style" fetchpriority="low" crossorigin href="/assets/portal-b2.css">',
      '<link rel="modulepreload" fetchpriority="low" crossorigin href="/assets/verify-pages-c3.js">',
    ]);
    expect(html.indexOf('verify-pages-c3.js')).toBeLessThan(html.indexOf('</head>'));
    expect(html).toContain('<script type="application/json" id="app-config">');
  });

  it('starts the self-contained chunks as async module scripts, inside <head>, not preloaded', async () => {
    const html = await (await fetch(`${server.baseUrl}/c/verify-identity`)).text();
    expect(startedScripts(html)).toEqual([
      '<script type="module" async fetchpriority="low" crossorigin src="/assets/zod-d4.js"></script>',
    ]);
    expect(html.indexOf('zod-d4.js')).toBeLessThan(html.indexOf('</head>'));
    expect(preloadLinks(html).join()).not.toContain('zod-d4.js');
  });

  it('preloads only the layout on another consumer page', async () => {
    const html = await (await fetch(`${server.baseUrl}/c/documents/42`)).text();
    expect(preloadLinks(html)).toHaveLength(layoutFiles.length);
    expect(html).not.toContain('verify-pages');
  });

  it.each(['/', '/unsubscribe', '/a/sign-in', '/abc123token'])('adds nothing on %s', async (pathname) => {
    const html = await (await fetch(`${server.baseUrl}${pathname}`)).text();
    expect(preloadLinks(html)).toEqual([]);
    expect(startedScripts(html)).toEqual([]);
    expect(html).toContain('<script type="application/json" id="app-config">');
  });

  it('sends the preloads compressed as well', async () => {
    const response = await fetch(`${server.baseUrl}/c/verify-token`, {
      headers: { 'accept-encoding': 'br' },
    });
    expect(response.headers.get('content-encoding')).toBe('br');
    const html = await response.text();
    expect(preloadLinks(html)).toHaveLength(verifyFiles.length);
    expect(startedScripts(html)).toHaveLength(startedFiles.length);
  });
});

describe('preloadPrefixOf', () => {
  const prefixes = ['/c/', '/c/verify-'];
  it.each([
    ['/c/verify-identity', '/c/verify-'],
    ['/c/mfa', '/c/'],
    ['/c', undefined],
    ['/', undefined],
    ['/cx/verify-identity', undefined],
  ] as const)('%s -> %s', (pathname, expected) => {
    expect(preloadPrefixOf(pathname, prefixes)).toBe(expected);
  });
});
