import type { Config } from '../config.ts';
import { DataDirInUseError } from '../db/data-dir-lock.ts';
import { openDatabase } from '../db/index.ts';
import type { DemoData } from '../demo/demo-file.ts';
import { readDemoFile } from '../demo/demo-file.ts';
import { demoLinks } from '../demo/links.ts';
import { ensureDemoData } from '../demo/seed.ts';
import { resolvePepper } from '../services/secrets.ts';

async function loadDemo(config: Config): Promise<DemoData> {
  const pepper = resolvePepper(config);
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(config);
  } catch (error) {
    // A running server holds PGlite; it wrote the demo object when it started.
    if (error instanceof DataDirInUseError) {
      const written = readDemoFile(config);
      if (written !== undefined) return written;
    }
    throw error;
  }
  try {
    const { created, demo } = await ensureDemoData(database.db, { config, pepper });
    if (created) process.stderr.write('demo data created\n');
    return demo;
  } finally {
    await database.close();
  }
}

/**
 * `demo`: prints the demo object (docs/operations.md), seeding the data wherever the configuration
 * points when it is absent: a trial on PostgreSQL starts here. With `--json`, stdout holds that one
 * JSON object and nothing else.
 */
export async function demoCommand(config: Config, args: string[]): Promise<number> {
  const demo = await loadDemo(config);
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(demo)}\n`);
  } else {
    process.stdout.write(`${JSON.stringify(demo, null, 2)}\n\n${demoLinks(config, demo)}`);
  }
  return 0;
}
