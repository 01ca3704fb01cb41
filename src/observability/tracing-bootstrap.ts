import type { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Imported first by main.ts, for its side effect: with OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, the OpenTelemetry SDK starts here, before Fastify and
 * the rest of the app load `http`, so its instrumentation sees every request. Without it the SDK is
 * never even required, and tracing.ts's spans are the API's no-ops.
 */
const endpoint = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
const disabled = (process.env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true';

// A conditional require, not an import: an import would load the SDK whether or not it is wanted.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the conditional load described above
const sdk: NodeSDK | null = endpoint && !disabled ? (require('./otel-sdk') as typeof import('./otel-sdk')).startTracing() : null;

/** Sends the spans still batched, waiting at most `timeoutMs` for the collector. */
export async function stopTracing(timeoutMs = 2000): Promise<void> {
  if (!sdk) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs).unref()));
  await Promise.race([sdk.shutdown().catch(() => undefined), deadline]);
  clearTimeout(timer);
}
