import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { sampleResidentMemory } from './processes.ts';

export const connections = 16;

/** Seconds per measured run (BENCH_SECONDS), after a warm-up of a fifth of it. */
export const runSeconds = Math.min(Math.max(Number(process.env.BENCH_SECONDS ?? 10), 1), 60);

const requestedRuns = Math.min(Math.max(Math.round(Number(process.env.BENCH_RUNS ?? 3)), 1), 9);

/**
 * Runs behind each figure (BENCH_RUNS, 1 to 9, an even number raised to the next odd one). The
 * machine is shared, and one run's rate moved by a third from one minute to the next: the report
 * gives the run of median rate, every run's rate beside it.
 */
export const runsPerFigure = requestedRuns % 2 === 0 ? requestedRuns + 1 : requestedRuns;

export interface LoadFigures {
  /** Successful (2xx) answers per second. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  successes: number;
  /** Answers that were not 2xx, plus connection errors and timeouts: none in a clean run. */
  failures: number;
  /** Peak resident memory of the server process(es) during the run, MiB. */
  peakRssMiB?: number;
  /** Every run's rate, in the order they ran, when the figures are the median of several. */
  runRates?: number[];
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A fixed JSON body. */
  body?: unknown;
  /** Connections kept open, when not the suite's 16. */
  connections?: number;
  /**
   * A body for each request, and what to take from each answer: refresh tokens are handed on this
   * way (each works once), through a pool the scenario keeps rather than autocannon's per-connection
   * context, which autocannon clears every time it wraps around its request list.
   */
  perRequest?: {
    bodyFor(): unknown;
    onAnswer(status: number, body: string): void;
  };
}

function asRequest(request: LoadRequest): autocannon.Request {
  const headers = {
    ...(request.body === undefined && request.perRequest === undefined
      ? {}
      : { 'content-type': 'application/json' }),
    ...request.headers,
  };
  const base: autocannon.Request = { method: request.method, path: request.path, headers };
  if (request.body !== undefined) base.body = JSON.stringify(request.body);
  const perRequest = request.perRequest;
  if (perRequest === undefined) return base;
  return {
    ...base,
    setupRequest: (outgoing) => ({ ...outgoing, body: JSON.stringify(perRequest.bodyFor()) }),
    onResponse: (status, body) => perRequest.onAnswer(status, body),
  };
}

/**
 * How long a load's end is given to drain: autocannon stops with a request in flight on each
 * connection, and the server still answers them. A password sign-in among them holds a place of
 * the account's budget of ten, so a load started at once would find it spent and be refused.
 */
const drainMs = 1000;

async function fire(url: string, request: LoadRequest, seconds: number): Promise<autocannon.Result> {
  // A list of one request: autocannon builds a connection's whole list as it opens it, and reads no
  // answer until all sixteen are open. The list of 100,000 that chained refreshes once used held the
  // first answers of every run back by about three seconds: the p99 of any run under 1,600 answers.
  const result = await autocannon({
    url,
    connections: request.connections ?? connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests: [asRequest(request)],
  });
  await sleep(drainMs);
  return result;
}

/**
 * Warms up, then loads `baseUrl` with `request` at 16 connections for `runSeconds`, sampling the
 * resident memory of `rssPids` meanwhile. Only successful answers count toward the rate.
 */
export async function measure(
  baseUrl: string,
  request: LoadRequest,
  rssPids: number[] = [],
  seconds = runSeconds,
): Promise<LoadFigures> {
  await fire(baseUrl, request, Math.max(1, Math.round(seconds / 5)));
  const memory = sampleResidentMemory(rssPids);
  const result = await fire(baseUrl, request, seconds);
  const peakRssMiB = await memory.stop();
  const successes = result['2xx'];
  return {
    rate: Math.round(successes / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    successes,
    failures: result.non2xx + result.errors + result.timeouts,
    ...(rssPids.length === 0 || peakRssMiB === undefined ? {} : { peakRssMiB }),
  };
}

/**
 * Runs each measurement `runsPerFigure` times, taking turns (a ceiling and the product it is
 * compared with, say), so that the machine's changing load falls on each alike.
 */
export async function inTurns<T extends unknown[]>(
  ...measurements: { [K in keyof T]: () => Promise<T[K]> }
): Promise<{ [K in keyof T]: T[K][] }> {
  const runs: unknown[][] = measurements.map(() => []);
  for (let round = 0; round < runsPerFigure; round += 1) {
    for (const [index, measurement] of measurements.entries()) runs[index]?.push(await measurement());
  }
  return runs as { [K in keyof T]: T[K][] };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  if (middle === undefined) throw new Error('no values');
  return middle;
}

/** The run of median rate, with every run's rate, and the highest peak of memory of them all. */
export function medianRun(runs: LoadFigures[]): LoadFigures {
  const rate = median(runs.map((run) => run.rate));
  const chosen = runs.find((run) => run.rate === rate);
  if (chosen === undefined) throw new Error('no runs');
  const peaks = runs.map((run) => run.peakRssMiB).filter((peak): peak is number => peak !== undefined);
  return {
    ...chosen,
    ...(peaks.length === 0 ? {} : { peakRssMiB: Math.max(...peaks) }),
    runRates: runs.map((run) => run.rate),
  };
}

/** `measure`, `runsPerFigure` times: the run of median rate. */
export async function measureRuns(
  baseUrl: string,
  request: LoadRequest,
  rssPids: number[] = [],
): Promise<LoadFigures> {
  const [runs] = await inTurns(() => measure(baseUrl, request, rssPids));
  return medianRun(runs);
}
