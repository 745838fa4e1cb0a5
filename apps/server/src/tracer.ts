/**
 * What a tracer offers, in a file of its own for both of its sides: `tracing.ts`, which everything
 * calls and which installs a tracer, and `tracing-sdk.ts`, loaded only when traces are on, which
 * makes one.
 */
import type { FastifyPluginCallback } from 'fastify';

export type SpanAttributes = Record<string, string | number | boolean>;

/** A started span; `end` records the failure, if any, and ends it. */
export interface StartedSpan {
  end(error?: unknown): void;
}

export interface Tracing {
  /** A child of the current request's span (or a root span outside any request). */
  startSpan(name: string, attributes: SpanAttributes): StartedSpan;
  /** The Fastify plugin that opens a span for each request and continues an incoming `traceparent`. */
  fastifyPlugin: FastifyPluginCallback;
  /** Sends the spans still waiting, then stops. */
  shutdown(): Promise<void>;
}
