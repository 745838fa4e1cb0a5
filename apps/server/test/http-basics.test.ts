import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { appConfigSchema } from '@entry/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

describe(`HTTP basics: documents, errors, headers, the web app (${databaseLabel})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('serves the OpenAPI document generated from the schemas, with every call of ours', async () => {
    const response = await call<{ openapi: string; paths: Record<string, unknown> }>(
      server.baseUrl,
      'GET',
      '/api/docs/openapi.json',
    );
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\./);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/auth/v1/access/{subdomain}',
        '/api/auth/v1/access/customer/{customerId}',
        '/api/auth/v1/admin/sign-in',
        '/api/auth/v1/admin/refresh',
        '/api/auth/v1/admin/sign-out',
        '/api/auth/v1/admin/password/reset',
        '/api/auth/v1/admin/password/change',
        '/api/auth/v1/customer/sign-in',
        '/api/auth/v1/customer/sign-in/token',
        '/api/auth/v1/consumer/refresh',
        '/api/auth/v1/consumer/sign-out',
        '/api/auth/v1/launch/customer/{customerId}',
        '/api/auth/v1/launch/dashbilling/{customerId}',
      ]),
    );
  });

  it.each([
    ['malformed JSON', '{"username": "a",', 'application/json'],
    ['JSON of the wrong shape', '[1,2,3]', 'application/json'],
  ])('answers %s with 400 InvalidValue, never 5xx', async (_label, rawBody, contentType) => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      rawBody,
      headers: { 'content-type': contentType },
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ errorCode: 'InvalidValue', errors: expect.any(Array) });
    expect(JSON.stringify(response.body)).not.toMatch(/at .+\.ts:\d+/);
  });

  const tooLarge = {
    errorCode: 'InvalidValue',
    message: 'The request body is too large.',
    errors: [{ field: 'body', message: 'The request body is too large.' }],
  };

  it.each([
    ['just over the limit', 100_000],
    ['of 10 MB', 10 * 1024 * 1024],
  ])('answers a body %s with 413 and the error body', async (_label, length) => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      rawBody: JSON.stringify({ username: 'a', password: 'x'.repeat(length) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual(tooLarge);
  });

  it('answers 413 to a client that sends all of a 10 MB body before it reads', async () => {
    const socket = connect(Number(new URL(server.baseUrl).port), '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    const body = Buffer.alloc(10 * 1024 * 1024, 'x');
    socket.write(
      'POST /api/auth/v1/admin/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    socket.end(body);
    await once(socket, 'close');

    const [head = '', text = ''] = received.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(text)).toEqual(tooLarge);
  });

  it('answers 413 whole to a client that asks to close the connection', async () => {
    const { port } = new URL(server.baseUrl);
    const body = JSON.stringify({ username: 'a', password: 'x'.repeat(70_000) });
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/auth/v1/admin/sign-in',
            headers: { 'content-type': 'application/json', connection: 'close' },
          },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        request.on('error', reject);
        request.end(body);
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toEqual(tooLarge);
    }
  });

  it('answers an unknown API path with 404 ItemNotFound', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await call(server.baseUrl, method, '/api/auth/v1/no-such-call');
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ errorCode: 'ItemNotFound', errors: [] });
    }
  });

  it('sends the security headers on every answer, no HSTS under http, no x-powered-by', async () => {
    for (const urlPath of ['/', '/api/auth/v1/access/sender', '/api/nothing']) {
      const response = await fetch(`${server.baseUrl}${urlPath}`);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security')).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
    }
  });

  it("sends the page's policy with the web app and a JSON-only policy with API answers", async () => {
    const page = await fetch(`${server.baseUrl}/c/verify-identity`);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    for (const urlPath of ['/api/auth/v1/access/sender', '/api/nothing']) {
      const response = await fetch(`${server.baseUrl}${urlPath}`);
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(response.headers.get('cross-origin-opener-policy')).toBeNull();
      expect(response.headers.get('x-dns-prefetch-control')).toBeNull();
    }
  });

  it('serves index.html with the public configuration for every app path, on any host', async () => {
    for (const urlPath of [
      '/',
      '/a/sign-in',
      '/c/account-summary/7',
      `/${server.demo.identityTokens.direct}/0`,
    ]) {
      const response = await fetch(`${server.baseUrl}${urlPath}`, {
        headers: { host: 'sender.localhost:8080' },
      });
      expect(response.status).toBe(200);
      const html = await response.text();
      const json = /<script type="application\/json" id="app-config">(.+?)<\/script>/.exec(html)?.[1];
      expect(appConfigSchema.parse(JSON.parse(json ?? 'null'))).toEqual({
        domain: 'localhost',
        scheme: 'http',
        port: '8080',
        adminDomainMarkers: ['admin'],
        dashDomainMarkers: ['dash'],
        staffIdleMinutes: 30,
      });
    }
  });

  it('serves the built assets as files, and index.html only with the configuration in it', async () => {
    const asset = await fetch(`${server.baseUrl}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const raw = await fetch(`${server.baseUrl}/index.html`);
    expect(await raw.text()).toContain('id="app-config"');
  });
});

describe('HTTPS deployments', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { PUBLIC_SCHEME: 'https', PUBLIC_PORT: '' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('sends HSTS and marks the refresh cookie Secure', async () => {
    const response = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: server.demo.admin.username, password: server.demo.admin.password },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('strict-transport-security')).toContain('max-age=');
    expect(response.headers.getSetCookie().join()).toContain('Secure');
    const access = await call(server.baseUrl, 'GET', '/api/auth/v1/access/sender');
    expect(access.body).toMatchObject({ target: 'https://sender.localhost/c/' });
  });
});
