import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type LoadFigures, runsPerFigure } from './load.ts';
import { loadAverage, type Machine } from './machine.ts';
import { repoRoot } from './processes.ts';

export const resultsDir = path.join(repoRoot, 'bench/results');

export type Figure = LoadFigures | number | string | boolean;

export interface SuiteResult {
  suite: string;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  /** Runs behind each load figure (older results: one). */
  runs?: number;
  machine: Machine;
  figures: Record<string, Figure>;
  notes: string[];
}

/** Collects one suite's figures and writes them to bench/results/<suite>.json. */
export class SuiteRecorder {
  readonly figures: Record<string, Figure> = {};
  readonly notes: string[] = [];
  readonly #startedAt = new Date();

  constructor(
    readonly suite: string,
    readonly machine: Machine,
    readonly seconds: number,
  ) {}

  record(id: string, figure: Figure): void {
    this.figures[id] = figure;
    process.stdout.write(`  ${this.suite} ${id}: ${JSON.stringify(figure)}\n`);
  }

  note(text: string): void {
    this.notes.push(text);
    process.stdout.write(`  ${this.suite} note: ${text}\n`);
  }

  async save(): Promise<SuiteResult> {
    const result: SuiteResult = {
      suite: this.suite,
      startedAt: this.#startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      seconds: this.seconds,
      runs: runsPerFigure,
      machine: { ...this.machine, loadAtEnd: loadAverage() },
      figures: this.figures,
      notes: this.notes,
    };
    await mkdir(resultsDir, { recursive: true });
    await writeFile(path.join(resultsDir, `${this.suite}.json`), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  }
}

export async function readResults(): Promise<Map<string, SuiteResult>> {
  const files = (await readdir(resultsDir)).filter((file) => file.endsWith('.json')).sort();
  const results = new Map<string, SuiteResult>();
  for (const file of files) {
    const result = JSON.parse(await readFile(path.join(resultsDir, file), 'utf8')) as Partial<SuiteResult>;
    // Other benchmarks keep their own result files here (import-links.json); only suites are read.
    if (typeof result.suite === 'string') results.set(result.suite, result as SuiteResult);
  }
  return results;
}
