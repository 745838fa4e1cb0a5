import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { recreateDatabase } from './lib/postgres.ts';
import { repoRoot } from './lib/processes.ts';

/**
 * Times the operator CLI's import, re-import and letter links, each a real process with its
 * start-up, on PGlite and on PostgreSQL (BENCH_POSTGRES_URL), against the import target.
 * Run: `npx tsx bench/import-links.ts [rows]`.
 */

const rows = Number(process.argv[2] ?? 100_000);
const resultFile = path.join(repoRoot, 'bench/results/import-links.json');
const signInTypes = ['Direct', 'Last4Ssn', 'PostalCode', 'DateOfBirth', 'None'] as const;

async function writeLines(file: string, header: string, line: (index: number) => string): Promise<void> {
  const out = createWriteStream(file);
  out.write(`${header}\n`);
  for (let index = 0; index < rows; index += 1) {
    if (!out.write(`${line(index)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

const pad = (value: number, length: number) => String(value).padStart(length, '0');

async function generateFiles(dir: string): Promise<{ consumers: string; links: string }> {
  const consumers = path.join(dir, 'consumers.csv');
  const links = path.join(dir, 'links.csv');
  await writeLines(consumers, 'consumerId,name,email,last4Ssn,postalCode,dateOfBirth', (index) => {
    const birth = `${1940 + (index % 60)}-${pad((index % 12) + 1, 2)}-${pad((index % 28) + 1, 2)}`;
    return `C-${index},Consumer ${index},consumer${index}@example.com,${pad(index % 10_000, 4)},${pad(10_000 + (index % 89_999), 5)},${birth}`;
  });
  await writeLines(
    links,
    'consumerId,signInType,target,targetId,expiresAt,paymentAmount,schedulePaymentAmount,scheduleDownPayment,scheduleInterval',
    (index) =>
      `C-${index},${signInTypes[index % signInTypes.length]},${index % 8},${index % 3 === 0 ? `INV-${index}` : ''},2099-12-31,${(index % 5000) + 0.5},100,25,Monthly`,
  );
  return { consumers, links };
}

/** Runs one CLI command in its own process; returns its wall time in ms, or throws with its output. */
async function timeCli(env: Record<string, string>, args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: path.join(repoRoot, 'apps/server'),
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}:\n${output}`);
  return Math.round(performance.now() - started);
}

interface Run {
  database: 'pglite' | 'postgres';
  rows: number;
  /** Start-up of a CLI process that does nothing (help): part of every figure below. */
  processStartMs: number;
  importNewMs: number;
  importUpdateMs: number;
  issueLinksMs: number;
  loadAtStart: number;
  loadAtEnd: number;
}

async function benchmark(
  database: Run['database'],
  files: { consumers: string; links: string },
  work: string,
): Promise<Run> {
  const env: Record<string, string> = { KBA_PEPPER: 'bench-pepper-bench-pepper-bench' };
  if (database === 'pglite') env.DATA_DIR = await mkdtemp(path.join(work, 'pglite-'));
  else env.DATABASE_URL = await recreateDatabase('bench_import_links');
  const loadAtStart = loadAverage();
  const processStartMs = await timeCli(env, ['help']);
  // The database is new: migrate it first, as an operator does before any command.
  await timeCli(env, ['migrate']);
  await timeCli(env, ['tenant', 'create', '--subdomain', 'bench', '--name', 'Bench Letters']);
  const common = ['--tenant', 'bench', '--file'];
  const importNewMs = await timeCli(env, ['consumers', 'import', ...common, files.consumers]);
  const importUpdateMs = await timeCli(env, ['consumers', 'import', ...common, files.consumers]);
  const out = path.join(work, `${database}-links-out.csv`);
  const issueLinksMs = await timeCli(env, [
    'links',
    'issue',
    ...common,
    files.links,
    '--out',
    out,
    '--mailing',
    'bench',
  ]);
  return {
    database,
    rows,
    processStartMs,
    importNewMs,
    importUpdateMs,
    issueLinksMs,
    loadAtStart,
    loadAtEnd: loadAverage(),
  };
}

const work = await mkdtemp(path.join(tmpdir(), 'entry-bench-import-'));
try {
  const files = await generateFiles(work);
  const runs: Run[] = [];
  for (const database of ['pglite', 'postgres'] as const) {
    const run = await benchmark(database, files, work);
    process.stdout.write(`${JSON.stringify(run)}\n`);
    runs.push(run);
  }
  await mkdir(path.dirname(resultFile), { recursive: true });
  await writeFile(
    resultFile,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), machine: describeMachine(), budgetMs: 30_000, runs }, null, 2)}\n`,
  );
  process.stdout.write(`Written to ${path.relative(repoRoot, resultFile)}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
