import autocannon from 'autocannon';
import { sampleResidentMemory } from './processes.ts';

export const connections = 16;

/** Seconds per measured run (BENCH_SECONDS), after a warm-up of a fifth of it. */
export const runSeconds = Math.min(Math.max(Number(process.env.BENCH_SECONDS ?? 10), 1), 60);

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
}

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A fixed JSON body. */
  body?: unknown;
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

async function fire(url: string, request: LoadRequest, seconds: number): Promise<autocannon.Result> {
  // A list of one request: autocannon builds a connection's whole list as it opens it, and reads no
  // answer until all sixteen are open. The list of 100,000 that chained refreshes once used held the
  // first answers of every run back by about three seconds: the p99 of any run under 1,600 answers.
  return autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    requests: [asRequest(request)],
  });
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
