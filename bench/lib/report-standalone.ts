/**
 * The sections of bench/RESULTS.md for the benchmarks that run on their own (bench/import-links.ts,
 * bench/audit-search.ts, bench/failure-store.ts), each shown when its results file is present.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { resultsDir } from './results.ts';

/** How a target's row reads. */
export const verdict = (met: boolean | undefined) =>
  met === undefined ? 'not measured' : met ? 'met' : '**missed**';

interface ImportLinksRun {
  database: string;
  rows: number;
  importNewMs: number;
  importUpdateMs: number;
  issueLinksMs: number;
  loadAtStart: number;
  loadAtEnd: number;
}

/** The operator CLI's own benchmark (bench/import-links.ts), when its results are present. */
export async function importLinksSection(): Promise<string[]> {
  let parsed: { measuredAt: string; budgetMs: number; runs: ImportLinksRun[] };
  try {
    parsed = JSON.parse(await readFile(path.join(resultsDir, 'import-links.json'), 'utf8'));
  } catch {
    return [];
  }
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    `## Operator CLI: consumer import and letter links (\`bench/import-links.ts\`, ${parsed.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `Budget: each step under ${seconds(parsed.budgetMs)}, process start-up included.`,
    '',
    '| database | rows | import (new) | import (updates) | letter links | load average start / end |',
    '| --- | --- | --- | --- | --- | --- |',
    ...parsed.runs.map(
      (run) =>
        `| ${run.database} | ${run.rows} | ${seconds(run.importNewMs)} | ${seconds(run.importUpdateMs)} | ${seconds(run.issueLinksMs)} | ${run.loadAtStart} / ${run.loadAtEnd} |`,
    ),
    '',
  ];
}

interface AuditSearchResults {
  measuredAt: string;
  rows: number;
  budgetMs: number;
  loadAtStart: number;
  loadAtEnd: number;
  figures: { scenario: string; medianMs: number; rows: number }[];
}

/** The console's audit search (bench/audit-search.ts), when its results are present. */
export async function auditSearchSection(): Promise<string[]> {
  let parsed: AuditSearchResults;
  try {
    parsed = JSON.parse(await readFile(path.join(resultsDir, 'audit-search.json'), 'utf8'));
  } catch {
    return [];
  }
  return [
    `## Console: audit search (\`bench/audit-search.ts\`, ${parsed.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `PostgreSQL, ${parsed.rows} audit rows; a page of 50, median of 5 runs; budget ${parsed.budgetMs} ms a page; load average ${parsed.loadAtStart} / ${parsed.loadAtEnd}.`,
    '',
    '| filter | median | rows on the page | verdict |',
    '| --- | --- | --- | --- |',
    ...parsed.figures.map(
      (figure) =>
        `| ${figure.scenario} | ${figure.medianMs} ms | ${figure.rows} | ${figure.medianMs <= parsed.budgetMs ? 'within' : 'over'} |`,
    ),
    '',
  ];
}

interface FailureStoreFigures {
  nsPerTake: number;
  roundsNsPerTake: number[];
  firstTakeNs: number;
}

interface FailureStoreResults {
  measuredAt: string;
  rounds: number;
  takesPerRound: number;
  maxRatio: number;
  populations: {
    addresses: number;
    withinWindow: FailureStoreFigures;
    acrossWindowChange: FailureStoreFigures;
    bareMap: FailureStoreFigures;
    loadAtStart: number;
    loadAtEnd: number;
  }[];
}

/** The in-memory failure store's own benchmark (bench/failure-store.ts), when its results are present. */
export async function readFailureStore(): Promise<FailureStoreResults | undefined> {
  try {
    return JSON.parse(await readFile(path.join(resultsDir, 'failure-store.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * No scan per failure: at 100,000 addresses a failure costs at most twice a bare Map's get and set of
 * the same addresses (a hash table's own cost grows once it leaves the caches). The window change
 * and the ratio to 10 addresses are shown beside it.
 */
export function failureStoreTargetRow(results: FailureStoreResults | undefined): string {
  const target =
    'in-memory failure store: a failure at 100,000 addresses costs at most 2x a bare Map get and set of them';
  const few = results?.populations.find((population) => population.addresses === 10);
  const many = results?.populations.find((population) => population.addresses === 100_000);
  if (results === undefined || few === undefined || many === undefined) {
    return `| ${target} | - | ${verdict(undefined)} |`;
  }
  const toMap = many.withinWindow.nsPerTake / many.bareMap.nsPerTake;
  const toFew = (kind: 'withinWindow' | 'acrossWindowChange') => many[kind].nsPerTake / few[kind].nsPerTake;
  const measured =
    `${many.withinWindow.nsPerTake} ns vs ${many.bareMap.nsPerTake} ns (${toMap.toFixed(1)}x); ` +
    `across a window change ${many.acrossWindowChange.nsPerTake} ns; ` +
    `against 10 addresses ${toFew('withinWindow').toFixed(1)}x within a window, ${toFew('acrossWindowChange').toFixed(1)}x across`;
  return `| ${target} | ${measured} | ${verdict(toMap <= results.maxRatio)} |`;
}

export function failureStoreSection(results: FailureStoreResults | undefined): string[] {
  if (results === undefined) return [];
  const runs = (figures: FailureStoreFigures) =>
    `${figures.nsPerTake} ns (${figures.roundsNsPerTake.join(', ')})`;
  return [
    `## In-memory failure store (\`bench/failure-store.ts\`, ${results.measuredAt.slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `Main-thread time of one failed attempt (a \`take\` that keeps its unit), every address already holding a unit,`,
    `the takes going to the addresses in turn: median of ${results.rounds} rounds of up to ${results.takesPerRound} takes, each round's figure`,
    'in brackets. Across a window change the clock has moved on one window: the first take opens a new',
    'window and drops the oldest whole (that take alone in its own column). The bare Map (get and set of',
    "the same addresses) is the floor under any store keyed by address: a hash table's cost grows with its",
    'size once it no longer fits the caches.',
    '',
    '| addresses | ns per take, within a window | ns per take, across a window change | first take of the new window | bare Map get and set | load average start / end |',
    '| --- | --- | --- | --- | --- | --- |',
    ...results.populations.map(
      (population) =>
        `| ${population.addresses} | ${runs(population.withinWindow)} | ${runs(population.acrossWindowChange)} | ${population.acrossWindowChange.firstTakeNs} ns | ${runs(population.bareMap)} | ${population.loadAtStart} / ${population.loadAtEnd} |`,
    ),
    '',
  ];
}
