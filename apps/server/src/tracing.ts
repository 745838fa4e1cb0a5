import type { Config } from './config.ts';
import type { SpanAttributes, StartedSpan, Tracing } from './tracer.ts';

/**
 * Opt-in OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT). The SDK lives in `tracing-sdk.ts`,
 * loaded only when traces are on (decision record 035); everything else calls the few functions
 * here, which do nothing while no tracer is installed.
 */

let installed: Tracing | undefined;

/** Loads the SDK and installs its tracer when OTEL_EXPORTER_OTLP_ENDPOINT is set; undefined otherwise. */
export async function startTracing(config: Pick<Config, 'otlpEndpoint'>): Promise<Tracing | undefined> {
  if (config.otlpEndpoint === undefined) return undefined;
  const { openTracing } = await import('./tracing-sdk.ts');
  const tracing = openTracing(config.otlpEndpoint);
  installed = tracing;
  return {
    ...tracing,
    shutdown: async () => {
      if (installed === tracing) installed = undefined;
      await tracing.shutdown();
    },
  };
}

/** A span for a call to a dependency, when traces are on. */
export function startSpan(name: string, attributes: SpanAttributes): StartedSpan | undefined {
  return installed?.startSpan(name, attributes);
}

/** Runs `work` inside a span named `name` when traces are on, and as it is otherwise. */
export async function traced<T>(
  name: string,
  attributes: SpanAttributes,
  work: () => Promise<T>,
): Promise<T> {
  const span = startSpan(name, attributes);
  if (span === undefined) return work();
  try {
    const result = await work();
    span.end();
    return result;
  } catch (error) {
    span.end(error);
    throw error;
  }
}
