import { DiagLogLevel, diag } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { format } from 'node:util';
import { rootLogger } from './logger';
import { redactedQuery } from './redacted-url';

/**
 * Loaded only when an OTLP endpoint is configured (tracing-bootstrap.ts), before anything requires
 * `http`. The exporter, its protocol (http/protobuf by default, http/json, grpc), headers, batch
 * delays and sampler come from the standard OTEL_* variables, read by the SDK itself.
 */

/** Probes and scrapes every few seconds would bury the traces worth reading. */
const UNTRACED = new Set(['/health/live', '/health/ready', '/metrics']);

const DIAG_LEVELS: Record<string, DiagLogLevel> = {
  NONE: DiagLogLevel.NONE,
  ERROR: DiagLogLevel.ERROR,
  WARN: DiagLogLevel.WARN,
  INFO: DiagLogLevel.INFO,
  DEBUG: DiagLogLevel.DEBUG,
  VERBOSE: DiagLogLevel.VERBOSE,
  ALL: DiagLogLevel.ALL,
};

/** The SDK's own messages (an export that failed, a bad variable) as JSON lines like any other. */
function diagnostics(level: 'error' | 'warn' | 'info' | 'debug') {
  return (message: string, ...args: unknown[]) => rootLogger()[level]({ context: 'OpenTelemetry' }, format(message, ...args));
}

function hasServiceName(env: NodeJS.ProcessEnv): boolean {
  return !!env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
}

export function startTracing(env: NodeJS.ProcessEnv = process.env): NodeSDK {
  const sdk = new NodeSDK({
    serviceName: hasServiceName(env) ? undefined : 'runledger',
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED.has((request.url ?? '').split('?')[0]),
        // Attributes returned here replace the instrumentation's own: `url.query` as the logs
        // show it (redacted-url.ts), not with the instrumentation's short list of signature names.
        startIncomingSpanHook: (request) => {
          const url = (request as { url?: string }).url ?? '';
          const mark = url.indexOf('?');
          return mark === -1 || mark === url.length - 1 ? {} : { 'url.query': redactedQuery(url.slice(mark + 1)) };
        },
      }),
    ],
    // Traces only: metrics are served at /metrics (prom-client), logs are the lines on stdout.
    metricReaders: [],
    logRecordProcessors: [],
  });
  // After the constructor, which installs a console (non-JSON) diagnostic logger for OTEL_LOG_LEVEL.
  const debug = diagnostics('debug');
  diag.setLogger(
    { error: diagnostics('error'), warn: diagnostics('warn'), info: diagnostics('info'), debug, verbose: debug },
    { logLevel: DIAG_LEVELS[(env.OTEL_LOG_LEVEL ?? '').trim().toUpperCase()] ?? DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  sdk.start();
  return sdk;
}
