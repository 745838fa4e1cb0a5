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
   * A body per request from the connection's own state, and what to keep from each answer: used to
   * chain refresh tokens (each refresh token works once).
   */
  chain?: {
    bodyFor(state: Record<string, unknown>): unknown;
    onAnswer(status: number, body: string, state: Record<string, unknown>): void;
  };
}

type Context = Record<string, unknown>;

const chainLength = 100_000;

function asRequest(request: LoadRequest): autocannon.Request {
  const headers = {
    ...(request.body === undefined && request.chain === undefined
      ? {}
      : { 'content-type': 'application/json' }),
    ...request.headers,
  };
  const base: autocannon.Request = { method: request.method, path: request.path, headers };
  if (request.body !== undefined) base.body = JSON.stringify(request.body);
  const chain = request.chain;
  if (chain === undefined) return base;
  return {
    ...base,
    setupRequest: (outgoing, context) => ({
      ...outgoing,
      body: JSON.stringify(chain.bodyFor(context as Context)),
    }),
    onResponse: (status, body, context) => chain.onAnswer(status, body, context as Context),
  };
}

async function fire(url: string, request: LoadRequest, seconds: number): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    // autocannon clears a connection's context each time it wraps around its request list, so a
    // chained request is repeated enough times that the chain never wraps within one run.
    requests:
      request.chain === undefined ? [asRequest(request)] : Array(chainLength).fill(asRequest(request)),
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
