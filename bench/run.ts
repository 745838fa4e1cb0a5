import { mkdir } from 'node:fs/promises';
import { loadAverage } from './lib/machine.ts';
import { buildServer, logsDir, runScript } from './lib/processes.ts';
import { writeReport } from './lib/report.ts';
import { runBrowserSuite } from './suites/browser.ts';
import { runDatabaseSuite } from './suites/database.ts';
import { runScaleOutSuite } from './suites/scale-out.ts';

/** `npm run bench` runs every suite; `npm run bench -- <name> [...]` runs the named ones. */
const suites: Record<string, () => Promise<void>> = {
  postgres: () => runDatabaseSuite('postgres'),
  pglite: () => runDatabaseSuite('pglite'),
  browser: runBrowserSuite,
  'scale-out': runScaleOutSuite,
  'import-links': () => runScript('bench/import-links.ts'),
  'audit-search': () => runScript('bench/audit-search.ts'),
  'failure-store': () => runScript('bench/failure-store.ts'),
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in suites) && name !== 'report');
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown benchmark ${unknown.join(', ')}. Benchmarks: ${Object.keys(suites).join(', ')}, report\n`,
  );
  process.exit(2);
}

await mkdir(logsDir, { recursive: true });
await buildServer();
const selected = requested.length === 0 ? Object.keys(suites) : requested.filter((name) => name !== 'report');
for (const name of selected) {
  process.stdout.write(`${name} (load average ${loadAverage()})\n`);
  await suites[name]?.();
}
await writeReport();
process.stdout.write('bench/RESULTS.md written\n');
