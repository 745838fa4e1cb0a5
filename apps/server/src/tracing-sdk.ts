import { FastifyOtelInstrumentation } from '@fastify/otel';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Tracing } from './tracer.ts';

/**
 * The OpenTelemetry SDK, imported by `tracing.ts` only when OTEL_EXPORTER_OTLP_ENDPOINT is set:
 * spans are batched and sent as OTLP/HTTP to `{endpoint}/v1/traces`. The request spans come from
 * `@fastify/otel`; the dependencies' spans are started where the server calls them.
 */
export function openTracing(endpoint: string): Tracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'entry-sign-in' }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }),
      }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer('entry-sign-in');
  const requests = new FastifyOtelInstrumentation({ recordExceptions: false });
  requests.setTracerProvider(provider);
  return {
    startSpan(name, attributes) {
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
      return {
        end(error) {
          if (error !== undefined) {
            span.setStatus({
              code: SpanStatusCode.ERROR,
              message: error instanceof Error ? error.message : String(error),
            });
          }
          span.end();
        },
      };
    },
    fastifyPlugin: requests.plugin(),
    async shutdown() {
      await provider.shutdown();
      context.disable();
      propagation.disable();
    },
  };
}
