import { existsSync } from 'node:fs';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumers } from '../src/db/schema.ts';
import { hashVerificationValue } from '../src/services/keyed-hash.ts';
import { cli, consumerHeader, csv, tempFile } from './cli-helpers.ts';
import { call, databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

describe(`operator CLI: consumer import (${databaseLabel})`, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const importFile = (content: string) =>
    cli(server, 'consumers', 'import', '--tenant', 'sender', '--file', tempFile('consumers.csv', content));
  // In id order: a scan's order is not the table's, and can change once a refused import's rows are dead.
  const tenantConsumers = () =>
    server.ctx.db
      .select()
      .from(consumers)
      .where(eq(consumers.tenantId, server.demo.tenant.customerId))
      .orderBy(asc(consumers.id));
  const consumer = async (consumerId: string) =>
    (
      await server.ctx.db
        .select()
        .from(consumers)
        .where(
          and(eq(consumers.tenantId, server.demo.tenant.customerId), eq(consumers.consumerId, consumerId)),
        )
    )[0];
  const lookup = (values: { last4Ssn: string; postalCode: string; dateOfBirth: string }) =>
    call(server.baseUrl, 'POST', '/api/auth/v1/consumer/sign-in/lookup', {
      body: { subdomain: 'sender', customerId: server.demo.tenant.customerId, ...values },
    });

  it('imports a good file: verification values stored only as keyed hashes, and a token-less lookup finds the consumer', async () => {
    const run = await importFile(
      csv(
        consumerHeader,
        'A-100,Ann Archer,ann@example.com,123-45-6781,30301,1971-02-03',
        'A-101,"Archer, Bob",bob@example.com,6782,30302-1234,1972-03-04',
      ),
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('Imported 2 consumers into sender: 2 new, 0 updated.\n');

    const ann = await consumer('A-100');
    expect(ann).toMatchObject({ name: 'Ann Archer', email: 'ann@example.com' });
    expect(ann).toMatchObject({
      last4SsnHash: hashVerificationValue(server.ctx.pepper, 'last4Ssn', '6781'),
      postalCodeHash: hashVerificationValue(server.ctx.pepper, 'postalCode', '30301'),
      dateOfBirthHash: hashVerificationValue(server.ctx.pepper, 'dateOfBirth', '1971-02-03'),
    });
    // No other column holds a value in plain. The hashes are left out of this search: a keyed hash
    // in hex holds "6781" or "30301" about once in a few hundred runs.
    const { last4SsnHash, postalCodeHash, dateOfBirthHash, ...otherColumns } = ann ?? {};
    expect(JSON.stringify(otherColumns)).not.toMatch(/6781|30301|1971-02-03/);
    expect((await consumer('A-101'))?.name).toBe('Archer, Bob');

    const found = await lookup({ last4Ssn: '6782', postalCode: '30302', dateOfBirth: '1972-03-04' });
    expect(found.status).toBe(200);
  });

  it('accepts the usual header spellings in any order', async () => {
    const run = await importFile(
      csv('DOB,ZIP,SSN,E-mail,Name,Consumer ID', '1990-01-01,10001,4444,hdr@example.com,Hal Header,H-1'),
    );
    expect(run.code).toBe(0);
    expect((await consumer('H-1'))?.name).toBe('Hal Header');
  });

  it('updates the consumers a re-import names again and adds the new ones', async () => {
    const run = await importFile(
      csv(
        consumerHeader,
        'A-100,Ann Archer-Smith,ann.smith@example.com,6781,30399,1971-02-03',
        'A-102,Cid Crane,cid@example.com,6783,30303,1973-04-05',
      ),
    );
    expect(run.stdout).toBe('Imported 2 consumers into sender: 1 new, 1 updated.\n');
    expect(await consumer('A-100')).toMatchObject({
      name: 'Ann Archer-Smith',
      email: 'ann.smith@example.com',
      postalCodeHash: hashVerificationValue(server.ctx.pepper, 'postalCode', '30399'),
    });
    expect((await lookup({ last4Ssn: '6781', postalCode: '30301', dateOfBirth: '1971-02-03' })).status).toBe(
      409,
    );
    expect((await lookup({ last4Ssn: '6781', postalCode: '30399', dateOfBirth: '1971-02-03' })).status).toBe(
      200,
    );
  });

  const good = (id: number) =>
    `B-${id},Bulk ${id},bulk${id}@example.com,${String(id % 10_000).padStart(4, '0')},40000,1980-01-01`;

  it.each([
    [
      'a bad e-mail',
      csv(consumerHeader, good(1), 'B-2,Bo,bo@nowhere,1234,40000,1980-01-01'),
      'line 3, column 3 (email)',
    ],
    [
      'a bad SSN',
      csv(consumerHeader, 'B-2,Bo,bo@example.com,12a4,40000,1980-01-01'),
      'line 2, column 4 (last4Ssn)',
    ],
    [
      'a bad ZIP',
      csv(consumerHeader, 'B-2,Bo,bo@example.com,1234,4000,1980-01-01'),
      'line 2, column 5 (postalCode)',
    ],
    [
      'an impossible date of birth',
      csv(consumerHeader, 'B-2,Bo,bo@example.com,1234,40000,1980-02-30'),
      'line 2, column 6 (dateOfBirth)',
    ],
    [
      'a date of birth in the future',
      csv(consumerHeader, 'B-2,Bo,bo@example.com,1234,40000,2099-01-01'),
      'line 2, column 6 (dateOfBirth)',
    ],
    [
      'a missing name',
      csv(consumerHeader, 'B-2,,bo@example.com,1234,40000,1980-01-01'),
      'line 2, column 2 (name)',
    ],
    ['a consumer id twice', csv(consumerHeader, good(1), good(2), good(1)), 'line 4, column 1 (consumerId)'],
    ['a short line', csv(consumerHeader, good(1), 'B-2,Bo,bo@example.com'), 'line 3'],
    ['an unknown column', csv(`${consumerHeader},phone`, `${good(1)},555`), 'line 1, column 7 (phone)'],
    [
      'a missing column',
      csv('consumerId,name,email,last4Ssn,postalCode', 'B-2,Bo,bo@example.com,1234,40000'),
      'line 1',
    ],
    ['no rows', csv(consumerHeader), 'line 2'],
    ['an empty file', '', 'line 1'],
    [
      'a bad row after more than one batch of good ones',
      csv(
        consumerHeader,
        ...Array.from({ length: 2500 }, (_, index) => good(index)),
        'B-x,Late,late@example,1234,40000,1980-01-01',
      ),
      'line 2502, column 3 (email)',
    ],
  ])(
    'refuses a file with %s: InvalidImportFile naming line and column, nothing written',
    async (_case, content, location) => {
      const before = await tenantConsumers();
      const run = await importFile(content);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^InvalidImportFile: The file has \d+ problems?; nothing was written\./);
      expect(run.stderr).toContain(`  ${location}`);
      expect(run.stdout).toBe('');
      expect(await tenantConsumers()).toEqual(before);
    },
  );

  it('lists every problem of a file, not only the first', async () => {
    const run = await importFile(
      csv(consumerHeader, 'B-1,Bo,bo@nowhere,12,1,1980-13-01', 'B-2,,x@example.com,1234,40000,1980-01-01'),
    );
    expect(run.stderr).toContain('The file has 5 problems');
    for (const location of [
      'line 2, column 3',
      'line 2, column 4',
      'line 2, column 5',
      'line 2, column 6',
      'line 3, column 2',
    ]) {
      expect(run.stderr).toContain(location);
    }
  });

  it('refuses an unknown tenant and a missing file', async () => {
    const file = tempFile('ok.csv', csv(consumerHeader, good(9)));
    const noTenant = await cli(server, 'consumers', 'import', '--tenant', 'nowhere', '--file', file);
    expect(noTenant).toMatchObject({ code: 1, stderr: expect.stringMatching(/^ItemNotFound: /) });
    const missing = `${file}.missing`;
    expect(existsSync(missing)).toBe(false);
    const noFile = await cli(server, 'consumers', 'import', '--tenant', 'sender', '--file', missing);
    expect(noFile).toMatchObject({ code: 2, stderr: expect.stringContaining('Cannot read the file') });
  });
});
