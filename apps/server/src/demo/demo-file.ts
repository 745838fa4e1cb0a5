import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { DemoData } from './seed.ts';

export const demoFilePath = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'demo.json');

/**
 * Keeps the demo object, passwords included, where only the data directory's owner reads it: the
 * demo's passwords exist nowhere else. Written whole under another name first, so a crash mid-write
 * never leaves half a file in its place.
 */
export function writeDemoFile(config: Pick<Config, 'dataDir'>, demo: DemoData): void {
  mkdirSync(config.dataDir, { recursive: true });
  const file = demoFilePath(config);
  const partial = `${file}.partial`;
  writeFileSync(partial, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
}

export function readDemoFile(config: Pick<Config, 'dataDir'>): DemoData | undefined {
  try {
    return JSON.parse(readFileSync(demoFilePath(config), 'utf8')) as DemoData;
  } catch {
    return undefined;
  }
}
