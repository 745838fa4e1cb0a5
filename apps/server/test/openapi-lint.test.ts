import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

const redoclyCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')),
  'bin',
  'cli.js',
);

/** Warnings this document keeps: the product has no public licence, and tests serve on localhost. */
const acceptedWarnings = new Set(['info-license', 'no-server-example.com']);

/** Redocly's recommended ruleset over `document`, as `redocly lint` reports it. */
async function lint(document: unknown): Promise<LintProblem[]> {
  const directory = mkdtempSync(path.join(tmpdir(), 'entry-openapi-'));
  try {
    const file = path.join(directory, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // The CLI exits 1 when it finds errors; its JSON report is on stdout either way.
    const output = await promisify(execFile)(
      process.execPath,
      [redoclyCli, 'lint', '--extends=recommended', '--format=json', file],
      {
        cwd: directory,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return (JSON.parse(output.stdout) as { problems: LintProblem[] }).problems;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The routes with `config.failureLimited`: each may answer the limiter's 429. */
const failureLimitedCalls = [
  ...['admin', 'customer'].flatMap((kind) =>
    [
      'sign-in',
      'password/reset',
      'password/change',
      'sign-in/second-factor',
      'second-factors/totp/confirm',
      'sign-in/passkey/options',
      'sign-in/passkey',
    ].map((call) => ['post', `/api/auth/v1/${kind}/${call}`]),
  ),
  ['post', '/api/auth/v1/customer/sign-in/token'],
  ['post', '/api/auth/v1/launch/customer/{customerId}'],
  ['post', '/api/auth/v1/launch/dashbilling/{customerId}'],
  ['post', '/api/auth/v1/consumer/sign-in/identity-token'],
  ['post', '/api/auth/v1/consumer/sign-in/lookup'],
  ['post', '/api/auth/v1/consumer/sign-in/mfa'],
  ['post', '/api/auth/v1/consumer/sign-in/mfa/resend'],
  ['get', '/api/auth/v1/consumers/token/{token}'],
  ['get', '/api/auth/v1/consumers/token/{token}/verify'],
  ['get', '/api/v1/communication/email/subscription/token/{token}'],
  ['post', '/api/v1/communication/email/subscription'],
  ['post', '/api/v1/communication/email/unsubscribe'],
] as const;

const where = (problem: LintProblem) => `${problem.ruleId} at ${problem.location[0]?.pointer}`;

describe(`the OpenAPI document against Redocly's recommended rules (${databaseLabel})`, () => {
  let server: TestServer;
  let document: { paths: Record<string, Record<string, { summary?: string }>> };
  beforeAll(async () => {
    server = await startTestServer();
    document = (await (await fetch(`${server.baseUrl}/api/docs/openapi.json`)).json()) as typeof document;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('has no errors, and no warnings but the licence and the test host', async () => {
    const problems = await lint(document);
    expect(problems.filter((problem) => problem.severity === 'error').map(where)).toEqual([]);
    expect(problems.filter((problem) => !acceptedWarnings.has(problem.ruleId)).map(where)).toEqual([]);
  });

  it('fails a route without its summary', async () => {
    const identityTokenSignIn = document.paths['/api/auth/v1/consumer/sign-in/identity-token']?.post;
    expect(identityTokenSignIn?.summary).toEqual(expect.any(String));
    const { summary: _summary, ...withoutSummary } = identityTokenSignIn ?? {};
    const problems = await lint({
      ...document,
      paths: {
        ...document.paths,
        '/api/auth/v1/consumer/sign-in/identity-token': { post: withoutSummary },
      },
    });
    expect(problems.map(where)).toContain(
      'operation-summary at #/paths/~1api~1auth~1v1~1consumer~1sign-in~1identity-token/post/summary',
    );
  });

  it('lists the JWKS, Retry-After where the server sends it, and both credentials', () => {
    const full = document as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
      components: { securitySchemes: Record<string, { type: string; in?: string }> };
    };
    expect(full.paths['/api/auth/.well-known/jwks.json']?.get?.responses['200']).toBeDefined();
    for (const [method, route] of failureLimitedCalls) {
      const answer = full.paths[route]?.[method]?.responses['429'];
      expect(answer?.headers, `${method} ${route}`).toHaveProperty('Retry-After');
    }
    expect(full.paths['/api/auth/v1/access/{subdomain}']?.get?.responses['503']?.headers).toHaveProperty(
      'Retry-After',
    );
    expect(full.paths['/api/ready']?.get?.responses['503']?.headers).toBeUndefined();
    expect(full.components.securitySchemes.refreshCookie).toMatchObject({ type: 'apiKey', in: 'cookie' });
    expect(full.components.securitySchemes.bearer).toMatchObject({ type: 'http' });
  });
});
