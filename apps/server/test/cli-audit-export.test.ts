import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditExportColumns } from '../src/services/audit-export.ts';
import { cli, tempFile } from './cli-helpers.ts';
import { databaseLabel, startTestServer, type TestServer } from './helpers/server.ts';

describe(`operator CLI: audit export (${databaseLabel})`, () => {
  let server: TestServer;
  const start = '2031-05-01T00:00:00.000Z';

  beforeAll(async () => {
    server = await startTestServer({});
    server.clock.advance(Date.parse(start) - server.clock.now().getTime());
    // One operator action per hour from 00:00: two tenants and a user, recorded with the clock's time.
    for (const argv of [
      ['tenant', 'create', '--subdomain', 'north', '--name', 'North'],
      ['tenant', 'create', '--subdomain', 'south', '--name', 'South'],
      [
        'user',
        'create',
        '--kind',
        'customer',
        '--tenant',
        'north',
        '--username',
        'nora',
        '--email',
        'nora@example.com',
      ],
    ]) {
      expect((await cli(server, ...argv)).code).toBe(0);
      server.clock.advanceMinutes(60);
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  const range = ['--from', start, '--to', '2031-05-01T02:00:00Z'];

  it('writes the rows of the range as JSON lines in time order, the end excluded', async () => {
    const run = await cli(server, 'audit', 'export', ...range, '--format', 'jsonl');
    expect(run.code).toBe(0);
    const rows = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows.map((row) => [row.event, row.at])).toEqual([
      ['operator.tenant.create', '2031-05-01T00:00:00.000Z'],
      ['operator.tenant.create', '2031-05-01T01:00:00.000Z'],
    ]);
    expect(rows[0]).toMatchObject({
      outcome: 'success',
      actor: 'operator:test-operator',
      detail: { subdomain: 'north' },
    });
  });

  it('filters by tenant and writes CSV with a header to a file', async () => {
    const out = tempFile('audit.csv');
    const run = await cli(
      server,
      'audit',
      'export',
      '--from',
      start,
      '--to',
      '2031-05-02',
      '--tenant',
      'north',
      '--out',
      out,
    );
    expect(run).toMatchObject({ code: 0, stdout: '', stderr: `Exported 2 audit rows to ${out}.\n` });
    const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([...auditExportColumns]);
    expect(rows.map((row) => row.event)).toEqual(['operator.tenant.create', 'operator.customer.create']);
    expect(new Set(rows.map((row) => row.tenantId)).size).toBe(1);
    expect(JSON.parse(rows[1]?.detail ?? '{}')).toMatchObject({ username: 'nora' });
  });

  it('pages through more rows than one query reads', async () => {
    const many = 5200;
    for (let i = 0; i < many; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, many - i) }, () =>
          server.ctx.audit.record({ event: 'test.bulk', outcome: 'success' }),
        ),
      );
    }
    const run = await cli(
      server,
      'audit',
      'export',
      '--from',
      '2031-05-01T03:00:00Z',
      '--to',
      '2032-01-01',
      '--format',
      'jsonl',
    );
    const rows = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; event: string });
    expect(rows.filter((row) => row.event === 'operator.audit.export')).toHaveLength(2);
    const ids = rows.filter((row) => row.event === 'test.bulk').map((row) => row.id);
    expect(ids.length).toBe(many);
    expect(new Set(ids).size).toBe(many);
  });

  it.each([
    [['audit', 'export', '--from', 'yesterday', '--to', '2031-05-02'], '--from must be an ISO date'],
    [['audit', 'export', '--from', '2031-05-02', '--to', '2031-05-01'], '--to must be later than --from.'],
    [
      ['audit', 'export', '--from', '2031-05-01', '--to', '2031-05-02', '--format', 'xml'],
      '--format must be one of: csv, jsonl.',
    ],
  ])('refuses %j with exit code 2', async (argv, message) => {
    const run = await cli(server, ...argv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
