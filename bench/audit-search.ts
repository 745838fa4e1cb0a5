import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { auditCursorOf, searchAudit } from '@entry/server/audit-search';
import { openDatabase } from '@entry/server/database';
import pg from 'pg';
import { median } from './lib/load.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { recreateDatabase } from './lib/postgres.ts';
import { repoRoot } from './lib/processes.ts';

/**
 * Times the console's audit search (first pages under each filter, and a page deep in the log by
 * its cursor) on PostgreSQL over `rows` audit rows spread over a year, 200 tenants, 200,000
 * consumers and 50,000 addresses, drawn at random. Run: `npx tsx bench/audit-search.ts [rows]` (default 1,000,000).
 */

const rows = Number(process.argv[2] ?? 1_000_000);
const repeats = 5;
const budgetMs = 100;
const resultFile = path.join(repoRoot, 'bench/results/audit-search.json');
const events = [
  'consumer.sign-in',
  'consumer.link.opened',
  'consumer.lookup',
  'consumer.mfa.sent',
  'customer.sign-in',
  'admin.sign-in',
  'customer.session.end',
  'consumer.session.end',
  'refresh.reuse',
  'launch.customer',
  'operator.links.issue',
  'mail.sent',
];

/** Fills the audit log; answers the position of the row 90% of the way down, newest first. */
async function seed(url: string): Promise<{ atMicros: bigint; id: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // One row every 30 s back from now (a million rows span about a year), the rest hashed from its number.
    await client.query(
      `INSERT INTO audit_log (at, event, actor, tenant_id, ip, outcome, detail)
       SELECT now() - g * interval '30 seconds',
         ($2::text[])[1 + abs(hashint4(g)) % ${events.length}],
         'consumer:' || abs(hashint4(g + 1)) % 200000,
         1001 + abs(hashint4(g + 2)) % 200,
         '10.' || abs(hashint4(g + 3)) % 50 || '.' || abs(hashint4(g + 4)) % 10 || '.' || abs(hashint4(g + 5)) % 100,
         CASE abs(hashint4(g + 6)) % 100 WHEN 0 THEN 'locked' WHEN 1 THEN 'failure' WHEN 2 THEN 'failure' ELSE 'success' END,
         '{}'::jsonb
       FROM generate_series(1, $1::int) g`,
      [rows, events],
    );
    await client.query('VACUUM ANALYZE audit_log');
    const deep = await client.query<{ micros: string; id: string }>(
      `SELECT (extract(epoch from at) * 1000000)::bigint::text AS micros, id FROM audit_log
       ORDER BY at DESC, id DESC OFFSET $1 LIMIT 1`,
      [Math.floor(rows * 0.9)],
    );
    const [row] = deep.rows;
    if (row === undefined) throw new Error('the audit log has too few rows');
    return { atMicros: BigInt(row.micros), id: Number(row.id) };
  } finally {
    await client.end();
  }
}

const url = await recreateDatabase('bench_audit_search');
const handle = await openDatabase({ databaseUrl: url, dataDir: path.join(repoRoot, 'bench/results') });
try {
  const loadAtStart = loadAverage();
  const seedStarted = performance.now();
  const deep = await seed(url);
  const seedMs = Math.round(performance.now() - seedStarted);
  const lastMonth = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const scenarios: Record<string, Parameters<typeof searchAudit>[1]> = {
    'newest, no filter': {},
    organization: { customerId: 1042 },
    'organization and event': { customerId: 1042, event: 'customer.sign-in' },
    'one consumer (actor)': { actor: 'consumer:4242' },
    address: { ip: '10.7.4.91' },
    'event, last 30 days': { event: 'admin.sign-in', from: lastMonth },
    'outcome locked': { outcome: 'locked' },
    'organization, failures': { customerId: 1042, outcome: 'failure' },
    'deep cursor (90% down), no filter': { cursor: auditCursorOf(deep) },
  };
  const figures: { scenario: string; medianMs: number; rows: number }[] = [];
  for (const [scenario, query] of Object.entries(scenarios)) {
    const times: number[] = [];
    let found = 0;
    for (let run = 0; run < repeats; run += 1) {
      const started = performance.now();
      const page = await searchAudit(handle.db, { ...query, limit: 50 });
      times.push(performance.now() - started);
      found = page.rows.length;
    }
    const figure = { scenario, medianMs: Math.round(median(times) * 10) / 10, rows: found };
    process.stdout.write(`${JSON.stringify(figure)}\n`);
    figures.push(figure);
  }
  await mkdir(path.dirname(resultFile), { recursive: true });
  await writeFile(
    resultFile,
    `${JSON.stringify(
      {
        measuredAt: new Date().toISOString(),
        machine: describeMachine(),
        rows,
        seedMs,
        budgetMs,
        loadAtStart,
        loadAtEnd: loadAverage(),
        figures,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`Written to ${path.relative(repoRoot, resultFile)}\n`);
} finally {
  await handle.close();
}
