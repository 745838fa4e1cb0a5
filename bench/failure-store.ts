import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { failureWindowMs, MemoryFailureCountStore } from '@entry/server/failure-store';
import { median } from './lib/load.ts';
import { describeMachine, loadAverage } from './lib/machine.ts';
import { repoRoot } from './lib/processes.ts';

/**
 * Main-thread time of one failed attempt in the in-memory failure store as the addresses holding
 * units grow (issue 27: the cost must not grow with them); each figure is the median round.
 * Run: `npx tsx bench/failure-store.ts [rounds]`.
 */

const populations = [10, 1_000, 100_000, 1_000_000];
const rounds = Number(process.argv[2] ?? 7);
const takesPerRound = 100_000;
/** A round stops early past this, so a store whose cost grows with its addresses still finishes. */
const roundCapMs = 2_000;
const resultFile = path.join(repoRoot, 'bench/results/failure-store.json');

type Store = MemoryFailureCountStore;

const failOnce = (store: Store, address: string, now: Date) => store.take(address, now);

/** Gives every address one unit in the window of `now`. */
function hold(store: Store, addresses: string[], now: Date): void {
  for (const address of addresses) failOnce(store, address, now);
}

const addressesOf = (count: number): string[] =>
  Array.from(
    { length: count },
    (_, index) => `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`,
  );

interface Round {
  takes: number;
  nsPerTake: number;
  /** The round's first take alone: across a window change, the one that drops the old windows. */
  firstTakeNs: number;
}

function timeRound(fail: (address: string) => unknown, addresses: string[]): Round {
  const started = performance.now();
  fail(addresses[0] ?? '');
  const firstTakeNs = (performance.now() - started) * 1e6;
  let takes = 1;
  while (takes < takesPerRound) {
    const batchEnd = Math.min(takesPerRound, takes + 1_000);
    for (; takes < batchEnd; takes += 1) fail(addresses[takes % addresses.length] ?? '');
    if (performance.now() - started > roundCapMs) break;
  }
  const nsPerTake = ((performance.now() - started) * 1e6) / takes;
  return { takes, nsPerTake: Math.round(nsPerTake), firstTakeNs: Math.round(firstTakeNs) };
}

interface Figures {
  /** Median of the rounds' ns per take. */
  nsPerTake: number;
  roundsNsPerTake: number[];
  takesPerRound: number[];
  firstTakeNs: number;
}

function summarise(measured: Round[]): Figures {
  return {
    nsPerTake: median(measured.map((round) => round.nsPerTake)),
    roundsNsPerTake: measured.map((round) => round.nsPerTake),
    takesPerRound: measured.map((round) => round.takes),
    firstTakeNs: median(measured.map((round) => round.firstTakeNs)),
  };
}

/** A time in the middle of window `window`, so no round crosses into the next one. */
const timeIn = (window: number) => new Date((window + 0.5) * failureWindowMs);
const baseWindow = Math.floor(Date.parse('2026-11-27T12:00:00Z') / failureWindowMs);

/** Every address holds a unit in the current window; the takes stay in it. */
function withinWindow(addresses: string[]): Figures {
  const store = new MemoryFailureCountStore();
  const now = timeIn(baseWindow);
  hold(store, addresses, now);
  const fail = (address: string) => failOnce(store, address, now);
  timeRound(fail, addresses);
  return summarise(Array.from({ length: rounds }, () => timeRound(fail, addresses)));
}

/** The floor under any store keyed by address: a bare Map's get and set, the same addresses in turn. */
function bareMap(addresses: string[]): Figures {
  const counts = new Map(addresses.map((address) => [address, 1]));
  const increment = (address: string) => counts.set(address, (counts.get(address) ?? 0) + 1);
  timeRound(increment, addresses);
  return summarise(Array.from({ length: rounds }, () => timeRound(increment, addresses)));
}

/**
 * Every address holds a unit in each of two windows, then the clock moves on one window: the
 * round's first take opens a new window and drops the oldest whole. A new store for each round.
 */
function acrossWindowChange(addresses: string[]): Figures {
  const measured: Round[] = [];
  for (let round = 0; round <= rounds; round += 1) {
    const store = new MemoryFailureCountStore();
    hold(store, addresses, timeIn(baseWindow - 1));
    hold(store, addresses, timeIn(baseWindow));
    const now = timeIn(baseWindow + 1);
    const result = timeRound((address) => failOnce(store, address, now), addresses);
    if (round > 0) measured.push(result);
  }
  return summarise(measured);
}

interface Population {
  addresses: number;
  withinWindow: Figures;
  acrossWindowChange: Figures;
  bareMap: Figures;
  loadAtStart: number;
  loadAtEnd: number;
}

const warmUp = addressesOf(1_000);
for (let pass = 0; pass < 3; pass += 1) {
  withinWindow(warmUp);
  acrossWindowChange(warmUp);
  bareMap(warmUp);
}

const measured: Population[] = [];
for (const count of populations) {
  const addresses = addressesOf(count);
  const loadAtStart = loadAverage();
  const population: Population = {
    addresses: count,
    withinWindow: withinWindow(addresses),
    acrossWindowChange: acrossWindowChange(addresses),
    bareMap: bareMap(addresses),
    loadAtStart,
    loadAtEnd: loadAverage(),
  };
  process.stdout.write(
    `${count} addresses: ${population.withinWindow.nsPerTake} ns per take within a window, ${population.acrossWindowChange.nsPerTake} ns across a window change (first take ${population.acrossWindowChange.firstTakeNs} ns), bare Map ${population.bareMap.nsPerTake} ns\n`,
  );
  measured.push(population);
}

await mkdir(path.dirname(resultFile), { recursive: true });
await writeFile(
  resultFile,
  `${JSON.stringify(
    {
      measuredAt: new Date().toISOString(),
      machine: describeMachine(),
      rounds,
      takesPerRound,
      roundCapMs,
      maxRatio: 2,
      populations: measured,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`Written to ${path.relative(repoRoot, resultFile)}\n`);
