import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHolder } from './helpers/data-dir-holder.ts';
import { createTestDatabase, databaseLabel, type TestDatabase, testDatabaseUrl } from './helpers/server.ts';

const run = promisify(execFile);
const serverDir = path.resolve(import.meta.dirname, '..');

describe(`npm run demo -- --json (${databaseLabel})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const demo = () =>
    run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'demo', '--json'], {
      cwd: serverDir,
      env: {
        ...process.env,
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl ?? '',
        KBA_PEPPER: database.pepper,
        PORT: '8080',
      },
    });

  it('creates the data and prints exactly one JSON object of docs/rules.md#demo-data on stdout', async () => {
    const { stdout } = await demo();
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0] ?? '');
    expect(printed).toMatchObject({
      baseUrl: 'http://localhost:8080',
      domain: 'localhost',
      tenant: { subdomain: 'sender', customerId: 1001 },
      customer: { customerId: 1001 },
      admin: { username: 'admin', totpSecret: expect.stringMatching(/^[A-Z2-7]{32}$/) },
      verification: { last4Ssn: '1234', postalCode: '90210', dateOfBirth: '1980-04-15' },
      withoutLink: { last4Ssn: '5678', postalCode: '10001', dateOfBirth: '1975-09-23' },
    });
    expect(Object.keys(printed.identityTokens).sort()).toEqual(
      ['dateOfBirth', 'direct', 'expired', 'last4Ssn', 'none', 'postalCode'].sort(),
    );

    const again = await demo();
    expect(JSON.parse(again.stdout)).toEqual(printed);
  });

  it.runIf(testDatabaseUrl === undefined)(
    'prints the demo.json the server wrote while a running server holds the PGlite directory',
    async () => {
      const holder = await startHolder(database.dataDir);
      try {
        writeFileSync(path.join(database.dataDir, 'demo.json'), JSON.stringify({ written: 'by the server' }));
        const { stdout } = await demo();
        expect(JSON.parse(stdout)).toEqual({ written: 'by the server' });
      } finally {
        holder.child.stdin?.end();
        await holder.exited;
      }
    },
  );
});
