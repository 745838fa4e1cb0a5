import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type LoadFigures, median } from './load.ts';
import { repoRoot } from './processes.ts';
import {
  auditSearchSection,
  failureStoreSection,
  failureStoreTargetRow,
  importLinksSection,
  readFailureStore,
  verdict,
} from './report-standalone.ts';
import { type Figure, readResults, type SuiteResult } from './results.ts';

const reportPath = path.join(repoRoot, 'bench/RESULTS.md');
/** What profiling (node --cpu-prof) found and what was changed; kept with the figures it explains. */
const findingsPath = path.join(repoRoot, 'bench/findings.md');

const isLoad = (figure: Figure | undefined): figure is LoadFigures =>
  typeof figure === 'object' && figure !== null && 'rate' in figure;

const load = (suite: SuiteResult | undefined, id: string): LoadFigures | undefined => {
  const figure = suite?.figures[id];
  return isLoad(figure) ? figure : undefined;
};

const numberOf = (suite: SuiteResult | undefined, id: string): number | undefined => {
  const figure = suite?.figures[id];
  return typeof figure === 'number' ? figure : undefined;
};

const show = (value: number | undefined, unit = '') => (value === undefined ? '-' : `${value}${unit}`);

const scenarioLabels: Record<string, string> = {
  accessLookup: 'access lookup',
  identityTokenLookup: 'identity-token lookup',
  identityTokenOpened: 'identity-token lookup with `addAction=true` (as the link guard sends it)',
  directSignIn: 'direct identity-token sign-in',
  refresh: 'refresh (each token chained from the last answer)',
  lookupSignIn: 'lookup sign-in (last 4 of SSN; MFA on, so the restricted token and a mailed code)',
  passwordSignIn: 'password sign-in (admin, 10 connections: one account lets 10 attempts be in flight)',
};

function machineLine(suite: SuiteResult): string {
  const m = suite.machine;
  return `| ${suite.suite} | ${suite.startedAt.slice(0, 16).replace('T', ' ')} UTC | ${m.nproc} x ${m.cpuModel} | ${m.memoryMiB} MiB | ${m.node} | ${m.loadAtStart} / ${m.loadAtEnd ?? '-'} | ${suite.runs ?? 1} x ${suite.seconds} s |`;
}

/** The rate, and every run's rate when it is the median of several. */
function rateOf(figures: LoadFigures | undefined): string {
  if (figures === undefined) return '-';
  const runs = figures.runRates ?? [];
  return runs.length > 1 ? `${figures.rate}/s (runs: ${runs.join(', ')})` : `${figures.rate}/s`;
}

function loadRow(label: string, figures: LoadFigures | undefined, reference: string): string {
  if (figures === undefined) return `| ${label} | - | - | - | - | - | ${reference} |`;
  return `| ${label} | ${rateOf(figures)} | ${figures.p50Ms} ms | ${figures.p99Ms} ms | ${figures.failures} | ${show(figures.peakRssMiB, ' MiB')} | ${reference} |`;
}

function databaseSection(suite: SuiteResult | undefined, title: string): string[] {
  if (suite === undefined) return [`## ${title}`, '', 'Not run yet.', ''];
  const ceilingAccess = load(suite, 'ceiling.accessLookup');
  const ceilingToken = load(suite, 'ceiling.identityTokenLookup');
  const argon2 = numberOf(suite, 'ceiling.argon2VerifyRate');
  const referenceOf = (name: string): string => {
    if (name === 'accessLookup') return `bare Fastify ${show(ceilingAccess?.rate, '/s')}`;
    if (name === 'identityTokenLookup' || name === 'identityTokenOpened')
      return `bare Fastify ${show(ceilingToken?.rate, '/s')}`;
    if (name === 'passwordSignIn') {
      const runs = suite.figures['ceiling.argon2VerifyRates'];
      return `raw argon2id verify ${show(argon2, '/s')} (2 workers${typeof runs === 'string' ? `; runs: ${runs}, in turns with the sign-in` : ''})`;
    }
    return '';
  };
  const rows = Object.keys(scenarioLabels).map((name) =>
    loadRow(scenarioLabels[name] ?? name, load(suite, `product.${name}`), referenceOf(name)),
  );
  return [
    `## ${title}`,
    '',
    '16 connections, successful answers only; "failures" counts every other answer (there should be none).',
    '',
    '| scenario | rate | p50 | p99 | failures | peak RSS | ceiling |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    loadRow('ceiling: bare Fastify, access JSON', ceilingAccess, 'own process, no plugins, no logger'),
    loadRow('ceiling: bare Fastify, identity-token JSON', ceilingToken, ''),
    ...rows,
    loadRow('Better Auth: email sign-in', load(suite, 'peer.signIn'), 'next to our password sign-in'),
    loadRow(
      'Better Auth: session check (`get-session`)',
      load(suite, 'peer.sessionCheck'),
      'next to our refresh',
    ),
    ...tracingRows(suite),
    '',
  ];
}

/** The direct sign-in of two fresh instances in turns, one sending its spans to a collector. */
function tracingRows(suite: SuiteResult): string[] {
  const untraced = load(suite, 'tracing.untraced');
  const traced = load(suite, 'tracing.traced');
  if (untraced === undefined || traced === undefined) return [];
  const exported = suite.figures['tracing.exportedBytes'];
  return [
    loadRow(
      'direct identity-token sign-in, traces off (a fresh instance)',
      untraced,
      'in turns with the next',
    ),
    loadRow(
      'direct identity-token sign-in, traces on (OTLP/HTTP to a collector that keeps nothing)',
      traced,
      typeof exported === 'number' ? `${Math.round(exported / 1024 / 1024)} MiB of spans sent` : '',
    ),
  ];
}

function peakRss(suite: SuiteResult | undefined, prefix: string): number | undefined {
  if (suite === undefined) return undefined;
  const peaks = Object.entries(suite.figures)
    .filter(([id]) => id.startsWith(prefix))
    .map(([, figure]) => (isLoad(figure) ? figure.peakRssMiB : undefined))
    .filter((value): value is number => value !== undefined);
  return peaks.length === 0 ? undefined : Math.max(...peaks);
}

/**
 * The ratio of the product's rate to its ceiling's, turn by turn: each product run against the
 * ceiling run beside it (they take turns), so a minute of the host that was slower for both cancels
 * out. The figure is the median of the turns' ratios; without runs, the one ratio of the two rates.
 */
function ratioByTurn(ours: LoadFigures, ceilingRates: number[]): { median: number; turns: number[] } {
  const runs = ours.runRates ?? [ours.rate];
  const turns =
    runs.length === ceilingRates.length && runs.length > 0
      ? runs.map((rate, turn) => rate / (ceilingRates[turn] ?? Number.NaN))
      : [ours.rate / median(ceilingRates)];
  return { median: median(turns), turns };
}

const percent = (ratio: number) => `${Math.round(ratio * 1000) / 10} %`;

/** A target that is a share of a ceiling: the rates, each turn's share, and the verdict on the median. */
function shareOfCeiling(
  ours: LoadFigures | undefined,
  ceilingRate: number | undefined,
  ceilingRates: number[],
  share: number,
): { measured: string; met: boolean | undefined } {
  const rates = `${show(ours?.rate, '/s')} vs ${show(ceilingRate, '/s')}`;
  if (ours === undefined || ceilingRates.length === 0) return { measured: rates, met: undefined };
  const ratio = ratioByTurn(ours, ceilingRates);
  const turns = ratio.turns.length > 1 ? `; by turn ${ratio.turns.map(percent).join(', ')}` : '';
  return { measured: `${rates}: ${percent(ratio.median)}${turns}`, met: ratio.median >= share };
}

const ceilingRatesOf = (figures: LoadFigures | undefined): number[] =>
  figures === undefined ? [] : (figures.runRates ?? [figures.rate]);

function targetRows(results: Map<string, SuiteResult>): string[] {
  const rows: string[] = [];
  const add = (target: string, measured: string, met: boolean | undefined) =>
    rows.push(`| ${target} | ${measured} | ${verdict(met)} |`);
  for (const kind of ['postgres', 'pglite']) {
    const suite = results.get(kind);
    for (const [name, ceilingId] of [
      ['accessLookup', 'ceiling.accessLookup'],
      ['identityTokenLookup', 'ceiling.identityTokenLookup'],
    ] as const) {
      const ceiling = load(suite, ceilingId);
      const { measured, met } = shareOfCeiling(
        load(suite, `product.${name}`),
        ceiling?.rate,
        ceilingRatesOf(ceiling),
        0.5,
      );
      add(`${kind}: ${scenarioLabels[name]} >= half of bare Fastify`, measured, met);
    }
    const argon2 = numberOf(suite, 'ceiling.argon2VerifyRate');
    const argon2Runs = suite?.figures['ceiling.argon2VerifyRates'];
    const password = shareOfCeiling(
      load(suite, 'product.passwordSignIn'),
      argon2,
      typeof argon2Runs === 'string'
        ? argon2Runs.split(', ').map(Number)
        : argon2 === undefined
          ? []
          : [argon2],
      0.8,
    );
    add(`${kind}: password sign-in >= 80% of raw argon2id verify`, password.measured, password.met);
    for (const name of ['refresh', 'directSignIn'] as const) {
      if (kind !== 'postgres') continue;
      const ours = load(suite, `product.${name}`);
      add(`postgres: ${scenarioLabels[name]} >= 1000/s`, show(ours?.rate, '/s'), ours && ours.rate >= 1000);
    }
    const slow = Object.keys(scenarioLabels)
      .filter((name) => name !== 'passwordSignIn')
      .map((name) => [name, load(suite, `product.${name}`)] as const);
    const over = slow.filter(([, figures]) => figures !== undefined && figures.p99Ms >= 50);
    add(
      `${kind}: p99 < 50 ms at 16 connections (all but password sign-in)`,
      over.length === 0
        ? 'all under'
        : over.map(([name, figures]) => `${name} ${figures?.p99Ms} ms`).join(', '),
      suite === undefined ? undefined : over.length === 0,
    );
  }
  const postgresRss = peakRss(results.get('postgres'), 'product.');
  add(
    'postgres: RSS < 200 MB under load',
    show(postgresRss, ' MiB'),
    postgresRss === undefined ? undefined : postgresRss < 200,
  );
  const tracedRss = peakRss(results.get('postgres'), 'tracing.traced');
  const untracedRss = peakRss(results.get('postgres'), 'tracing.untraced');
  add(
    'postgres: RSS < 200 MB with traces on (direct sign-in; traces off beside it)',
    `${show(tracedRss, ' MiB')} vs ${show(untracedRss, ' MiB')}`,
    tracedRss === undefined ? undefined : tracedRss < 200,
  );
  const pgliteRss = peakRss(results.get('pglite'), 'product.');
  const peerRss = peakRss(results.get('pglite'), 'peer.');
  add(
    "pglite: RSS below Better Auth's on PGlite",
    `${show(pgliteRss, ' MiB')} vs ${show(peerRss, ' MiB')}`,
    pgliteRss === undefined || peerRss === undefined ? undefined : pgliteRss < peerRss,
  );
  const browser = results.get('browser');
  const entryGzip = numberOf(browser, 'entry.loadedJsGzipBytes');
  add(
    'entry page JavaScript <= 90 KB gzipped (what Chromium loads on `/`)',
    show(entryGzip === undefined ? undefined : Math.round(entryGzip / 102.4) / 10, ' KB'),
    entryGzip === undefined ? undefined : entryGzip <= 90 * 1024,
  );
  const apiCalls = browser?.figures['directLink.apiCallsBeforeTarget'];
  add(
    'Direct link: exactly the two parallel calls and the sign-in call before its page shows',
    typeof apiCalls === 'string' ? apiCalls : '-',
    typeof browser?.figures['directLink.exactlyThreeCalls'] === 'boolean'
      ? browser.figures['directLink.exactlyThreeCalls']
      : undefined,
  );
  for (const [id, label, minimum] of [
    ['lighthouse.performance', 'Lighthouse mobile performance >= 95', 95],
    ['lighthouse.accessibility', 'Lighthouse mobile accessibility 100', 100],
    ['lighthouse.bestPractices', 'Lighthouse mobile best practices >= 95', 95],
  ] as const) {
    const score = numberOf(browser, id);
    add(label, show(score), score === undefined ? undefined : score >= minimum);
  }
  return rows;
}

function browserSection(suite: SuiteResult | undefined): string[] {
  if (suite === undefined) return ['## Browser', '', 'Not run yet.', ''];
  const figure = (id: string) => {
    const value = suite.figures[id];
    return value === undefined ? '-' : String(value);
  };
  return [
    '## Browser (Chromium /usr/bin/chromium, headless)',
    '',
    '| figure | value |',
    '| --- | --- |',
    `| entry chunk and its static imports in apps/web/dist, gzipped | ${figure('entry.distJsGzipBytes')} bytes |`,
    `| JavaScript Chromium loads on \`/\` (gzipped, as served files) | ${figure('entry.loadedJsGzipBytes')} bytes in ${figure('entry.loadedJsFiles')} files |`,
    `| Direct link to its target page rendered | ${figure('directLink.ms')} ms |`,
    `| API calls of the Direct link, in order, until the network is idle | ${figure('directLink.apiCalls')} |`,
    `| of which made before the target page's heading was in the page | ${figure('directLink.apiCallsWhenRendered')}: ${figure('directLink.apiCallsBeforeTarget')} |`,
    `| what held Lighthouse performance under 90 in the median run, picker / verify-identity | ${figure('lighthouse.picker.performanceBelow90')} / ${figure('lighthouse.verifyIdentity.performanceBelow90')} |`,
    `| JavaScript files Chromium loaded on \`/\` (gzipped bytes) | ${figure('entry.loadedJsDetail')} |`,
    `| Lighthouse mobile, median run of five (Lighthouse's \`computeMedianRun\`), lower of the picker and verify-identity (performance / accessibility / best practices) | ${figure('lighthouse.performance')} / ${figure('lighthouse.accessibility')} / ${figure('lighthouse.bestPractices')} |`,
    `| Lighthouse mobile performance of each run, picker / verify-identity | ${figure('lighthouse.picker.performanceRuns')} / ${figure('lighthouse.verifyIdentity.performanceRuns')} |`,
    '',
  ];
}

function scaleOutSection(suite: SuiteResult | undefined): string[] {
  if (suite === undefined) return ['## Scale-out', '', 'Not run yet.', ''];
  const names = ['accessLookup', 'identityTokenLookup', 'refresh'];
  return [
    '## Scale-out: two instances on one PostgreSQL and Redis behind nginx (round robin)',
    '',
    '| scenario | one instance, direct | two instances behind nginx | ',
    '| --- | --- | --- |',
    ...names.map((name) => {
      const one = load(suite, `single.${name}`);
      const two = load(suite, `pair.${name}`);
      return `| ${scenarioLabels[name]} | ${rateOf(one)}, p99 ${show(one?.p99Ms, ' ms')} | ${rateOf(two)}, p99 ${show(two?.p99Ms, ' ms')}, failures ${show(two?.failures)} |`;
    }),
    '',
  ];
}

/** Renders bench/RESULTS.md from every bench/results/*.json. */
export async function writeReport(): Promise<void> {
  const results = await readResults();
  const failureStore = await readFailureStore();
  const notes = [...results.values()].flatMap((suite) =>
    suite.notes.map((note) => `- ${suite.suite}: ${note}`),
  );
  const lines = [
    '# Benchmark results',
    '',
    'Generated by `npm run bench` (all suites) or `npm run bench -- <postgres|pglite|browser|scale-out>` from',
    '`bench/results/*.json`; `npm run bench -- report` only rewrites this page. Every server runs in its own',
    'process on loopback; autocannon runs in the harness process on the same two cores, so every figure',
    'includes the load generator competing for the CPU, for the ceilings as much as for the product.',
    'The machine is shared with other work, and a rate can move by a third from one minute to the next: each',
    "load figure is the run of median rate of several (`BENCH_RUNS`, 3 unless set), every run's rate beside",
    'it, and a ceiling takes turns with what it is compared with, run by run (the bare lookups with the',
    "product's, raw argon2id with the password sign-in, one instance with the pair). A target that is a",
    "share of a ceiling is judged on the median of the turns' shares, each run against the ceiling's run",
    'beside it, so that a slower minute of the host weighs on both sides of each share. Peak RSS is the',
    'highest of all the runs.',
    '',
    '## Machine and load',
    '',
    '| suite | started | CPUs | memory | node | load average at start / end | runs x seconds |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...[...results.values()].map(machineLine),
    '',
    '## Targets',
    '',
    '| target | measured | verdict |',
    '| --- | --- | --- |',
    ...targetRows(results),
    failureStoreTargetRow(failureStore),
    '',
    ...databaseSection(results.get('postgres'), 'PostgreSQL 15 (pool of 10)'),
    ...databaseSection(results.get('pglite'), 'PGlite (embedded, in the server process)'),
    ...browserSection(results.get('browser')),
    ...scaleOutSection(results.get('scale-out')),
    ...(await importLinksSection()),
    ...(await auditSearchSection()),
    ...failureStoreSection(failureStore),
    ...(await readFile(findingsPath, 'utf8')).split('\n'),
    '## Notes',
    '',
    ...(notes.length === 0 ? ['None.'] : notes),
    '',
  ];
  await writeFile(reportPath, lines.join('\n'));
}
