import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preferredEncoding } from '../src/web.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A plain HTTP GET that leaves the body as sent (fetch would decompress it). */
function rawGet(url: string, headers: Record<string, string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

function decode(response: RawResponse): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.body).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(response.body).toString('utf8');
  return response.body.toString('utf8');
}

describe(`the web build is served compressed (${databaseLabel})`, () => {
  const script = `export const pages = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `page ${i}`))};\n`;
  let webDist: string;
  let server: TestServer;

  beforeAll(async () => {
    // As the web build leaves it: every text file next to its `.br` and `.gz`.
    webDist = mkdtempSync(path.join(tmpdir(), 'entry-compressed-dist-'));
    mkdirSync(path.join(webDist, 'assets'));
    writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><html lang="en"><head><title>Entry</title></head><body><div id="root"></div></body></html>',
    );
    const scriptFile = path.join(webDist, 'assets', 'index-abc123.js');
    writeFileSync(scriptFile, script);
    writeFileSync(`${scriptFile}.br`, brotliCompressSync(script));
    writeFileSync(`${scriptFile}.gz`, gzipSync(script));
    server = await startTestServer({ webDistDir: webDist });
  });

  afterAll(async () => {
    await server.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it.each([
    ['br, gzip, deflate', 'br'],
    ['gzip', 'gzip'],
    ['gzip, br;q=0', 'gzip'],
  ])('sends a script brotli or gzip encoded when the browser accepts it (%s)', async (accept, encoding) => {
    const response = await rawGet(`${server.baseUrl}/assets/index-abc123.js`, { 'accept-encoding': accept });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBe(encoding);
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.body.length).toBeLessThan(Buffer.byteLength(script));
    expect(decode(response)).toBe(script);
  });

  it.each([
    ['no Accept-Encoding', {}],
    ['identity only', { 'accept-encoding': 'identity' }],
  ])('sends the script plain with %s', async (_label, headers: Record<string, string>) => {
    const response = await rawGet(`${server.baseUrl}/assets/index-abc123.js`, headers);
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.body.toString('utf8')).toBe(script);
  });

  it('compresses index.html, with the configuration in it, and sends it plain when asked', async () => {
    const compressed = await rawGet(`${server.baseUrl}/c/verify-identity`, { 'accept-encoding': 'gzip, br' });
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers.vary).toMatch(/accept-encoding/i);
    expect(compressed.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(decode(compressed)).toContain('<script type="application/json" id="app-config">');

    const plain = await rawGet(`${server.baseUrl}/c/verify-identity`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.toString('utf8')).toBe(decode(compressed));
  });
});

describe('preferredEncoding', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['identity', null],
    ['gzip, deflate, br', 'br'],
    ['GZIP', 'gzip'],
    ['br;q=0, gzip;q=0.5', 'gzip'],
    ['br;q=0.0, gzip;q=0', null],
    ['*', 'gzip'],
    ['deflate', null],
  ] as const)('%s -> %s', (header, expected) => {
    expect(preferredEncoding(header)).toBe(expected);
  });
});
