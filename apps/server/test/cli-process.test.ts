import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { runMain, runMainFrom, serverRoot } from './cli-helpers.ts';
import { createTestDatabase, databaseLabel, type TestDatabase, testDatabaseUrl } from './helpers/server.ts';

describe(`the operator CLI as a process (${databaseLabel})`, () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATA_DIR: database.dataDir, KBA_PEPPER: database.pepper, MIGRATE: '1' };
    if (database.databaseUrl !== undefined) env.DATABASE_URL = database.databaseUrl;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers --help, -h and --version through main.ts, before any database is opened', async () => {
    for (const flag of ['--help', '-h']) {
      const help = await runMain({}, flag);
      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toContain('npm run cli -- tenant create');
    }
    const manifest = JSON.parse(readFileSync(path.join(serverRoot, 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      expect(await runMain({}, flag)).toEqual({ code: 0, stdout: `${manifest.version}\n`, stderr: '' });
    }
  });

  it('refuses a Node older than 22 by its version, with exit code 1, before any command runs', async () => {
    // This Node, reporting itself as 20 before main.ts loads.
    const asNode20 =
      "--import=data:text/javascript,Object.defineProperty(process,'versions',{value:{...process.versions,node:'20.20.2'}})";
    const nodeOptions = [process.env.NODE_OPTIONS, asNode20].filter(Boolean).join(' ');
    expect(await runMain({ NODE_OPTIONS: nodeOptions }, '--version')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'The server needs Node 22 or later (it is built and tested on Node 24); this is Node 20.20.2.\n',
    });
  });

  it('creates and lists a tenant through main.ts, with exit codes 0, 1 and 2', async () => {
    const created = await runMain(
      env,
      'tenant',
      'create',
      '--subdomain',
      'proc-tenant',
      '--name',
      'Process Tenant',
    );
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toContain('Created tenant proc-tenant');

    const listed = await runMain(env, 'tenant', 'list', '--format', 'json');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ subdomain: 'proc-tenant' })]);

    // Started from another directory, the embedded database's thread still finds what it loads.
    const elsewhere = await runMainFrom(tmpdir(), env, 'tenant', 'list', '--format', 'json');
    expect(elsewhere).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(elsewhere.stdout)).toEqual([expect.objectContaining({ subdomain: 'proc-tenant' })]);

    // Creating a user hashes a password on a thread of its own; the command still ends by itself.
    const user = await runMain(
      env,
      'user',
      'create',
      '--kind',
      'customer',
      '--tenant',
      'proc-tenant',
      '--username',
      'casey',
      '--email',
      'casey@proc-tenant.example',
    );
    expect(user).toMatchObject({ code: 0, stderr: '' });
    expect(user.stdout).toContain('Created customer user casey.');

    const reserved = await runMain(env, 'tenant', 'create', '--subdomain', 'www', '--name', 'Nope');
    expect(reserved).toMatchObject({ code: 1, stderr: expect.stringMatching(/^ReservedValue: /) });

    const mistyped = await runMain(env, 'tenant', 'create', '--subdomain');
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toContain('npm run cli -- tenant create');
  }, 60_000);

  it.skipIf(testDatabaseUrl !== undefined)(
    'stops with a clear message while a server holds the PGlite data directory',
    async () => {
      const held = await openDatabase({ dataDir: database.dataDir, databaseUrl: undefined });
      try {
        const run = await runMain(env, 'tenant', 'list');
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`The data directory ${database.dataDir} is in use by another process`);
      } finally {
        await held.close();
      }
    },
    60_000,
  );
});
