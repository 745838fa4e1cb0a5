import { execFile } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createPopulation, type Population } from './population.ts';
import { repoRoot, type ServerProcess, startServer } from './processes.ts';

const run = promisify(execFile);

/** The part of the demo object (`npm run demo -- --json`, DATA_DIR/demo.json) the scenarios use. */
export interface Demo {
  tenant: { subdomain: string; customerId: number };
  admin: { username: string; password: string };
  identityTokens: { direct: string; last4Ssn: string };
  verification: { last4Ssn: string };
  emailSubscription: { token: string };
}

export interface ProductOptions {
  name: string;
  port: number;
  /** Unset: PGlite in a fresh DATA_DIR. */
  databaseUrl?: string;
  redisUrl?: string;
  /** Shared by instances of one deployment: the signing key and the pepper. */
  secrets?: ProductSecrets;
  env?: Record<string, string>;
  /** The demo of an instance already started on the same database: this one seeds nothing. */
  demo?: Demo;
  /**
   * Consumers with letter links to create with the operator CLI after the first start; the server
   * is then started again on the same data, as after a deployment.
   */
  population?: number;
}

export interface ProductSecrets {
  signingKey: string;
  pepper: string;
}

export function newSecrets(): ProductSecrets {
  const { privateKey } = generateKeyPairSync('ed25519');
  return {
    signingKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    pepper: randomBytes(32).toString('base64url'),
  };
}

export interface RunningProduct {
  server: ServerProcess;
  demo: Demo;
  dataDir: string;
  population?: Population;
}

/**
 * Node's flags in the server's `serve` script (apps/server/package.json), so the benchmark runs the
 * server as `npm start` and a deployment do: `node <flags> dist/main.js serve`, from the build.
 */
async function serveNodeFlags(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(repoRoot, 'apps/server/package.json'), 'utf8')) as {
    scripts: { serve: string };
  };
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) dist\/main\.js serve$/.exec(manifest.scripts.serve);
  if (match === null) throw new Error(`unexpected serve script: ${manifest.scripts.serve}`);
  return (match[1] ?? '').split(' ').filter((flag) => flag !== '');
}

/** Seeds the demo with the server's `demo` command, as a trial on PostgreSQL does, and returns it. */
async function seedDemo(env: Record<string, string>): Promise<Demo> {
  const { stdout } = await run(process.execPath, ['apps/server/dist/main.js', 'demo', '--json'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
  });
  return JSON.parse(stdout) as Demo;
}

/**
 * Starts the built server (`apps/server/dist/main.js serve`, see `buildServer`) in its own process
 * with the product's default settings (LOG_LEVEL, RATE_LIMIT_FAILURES and the rest unset), a fresh
 * DATA_DIR, and the demo data, seeded first.
 */
export async function startProduct(options: ProductOptions): Promise<RunningProduct> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `entry-bench-${options.name}-`));
  const secrets = options.secrets ?? newSecrets();
  const env: Record<string, string> = {
    PORT: String(options.port),
    BIND_ADDRESS: '127.0.0.1',
    DATA_DIR: dataDir,
    AUTH_SIGNING_KEY: secrets.signingKey,
    KBA_PEPPER: secrets.pepper,
    // Each suite makes its database anew, as a trial does: the server migrates it.
    MIGRATE: '1',
    // The one-time codes of the sign-ins go to the server's log, as in a trial, on either database.
    MAIL_TRANSPORT: 'log',
    ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
    ...(options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl }),
    ...options.env,
  };
  const nodeFlags = await serveNodeFlags();
  const launch = () =>
    startServer({
      name: options.name,
      script: 'apps/server/dist/main.js',
      args: ['serve'],
      nodeFlags,
      env,
      port: options.port,
      readyPath: '/api/auth/.well-known/jwks.json',
    });
  const demo = options.demo ?? (await seedDemo(env));
  let server = await launch();
  if (options.population === undefined) return { server, demo, dataDir };
  await server.stop();
  const population = await createPopulation(options.population, demo.tenant.subdomain, dataDir, env);
  server = await launch();
  return { server, demo, dataDir, population };
}

/** One direct identity-token sign-in: a fresh consumer session, for the refresh chain. */
export async function directSignIn(baseUrl: string, demo: Demo): Promise<{ refreshToken: string }> {
  const response = await fetch(`${baseUrl}/api/auth/v1/consumer/sign-in/identity-token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(directSignInBody(demo)),
  });
  if (!response.ok) throw new Error(`direct sign-in answered ${response.status}`);
  return (await response.json()) as { refreshToken: string };
}

export const directSignInBody = (demo: Demo) => ({
  token: demo.identityTokens.direct,
  customerId: demo.tenant.customerId,
  subdomain: demo.tenant.subdomain,
});
