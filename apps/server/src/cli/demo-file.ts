import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { DemoData } from '../demo/seed.ts';

const demoFile = (config: Config) => path.join(config.dataDir, 'demo.json');

/** The server writes the demo object so `npm run demo` can print it while the server holds PGlite. */
export function writeDemoFile(config: Config, demo: DemoData): void {
  writeFileSync(demoFile(config), `${JSON.stringify(demo, null, 2)}\n`);
}

export function readDemoFile(config: Config): DemoData | undefined {
  try {
    return JSON.parse(readFileSync(demoFile(config), 'utf8')) as DemoData;
  } catch {
    return undefined;
  }
}
