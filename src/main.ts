import 'reflect-metadata';
// First: with OTEL_EXPORTER_OTLP_ENDPOINT set, the tracing SDK must start before `http` is loaded.
import { stopTracing } from './observability/tracing-bootstrap';
import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/config';
import { ShutdownState } from './health/shutdown-state';
import { exitLogger, nestLogger } from './observability/logger';

/** Below the usual 10 s grace period of a rolling restart. */
const SHUTDOWN_DEADLINE_MS = 8000;

async function main(): Promise<void> {
  // Every line is JSON on stdout (observability/logger.ts), from the first one on.
  Logger.overrideLogger(nestLogger());
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    exitLogger().fatal({ context: 'Runledger', problems: error.problems }, error.message);
    process.exit(1);
  }
  const logger = new Logger('Runledger');
  let app;
  try {
    app = await createApp(config);
    await app.listen(config.port, config.host);
  } catch (error) {
    exitLogger().fatal({ context: 'Runledger', err: error }, `Runledger could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  logger.log(`serving on ${await app.getUrl()} with the ${config.eventStore} event store`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received, shutting down`);
      // Readiness says no at once, before Nest's shutdown hooks start ending streams.
      app.get(ShutdownState).begin();
      // An orchestrator kills the process after its grace period (often 10 s); a shutdown that
      // hangs must not be the reason, and a second signal still stops the process at once.
      setTimeout(() => {
        // What still holds the process (sockets, timers, handles) points at the step that hung.
        const holding = process.getActiveResourcesInfo().join(', ');
        logger.error(`shutdown took over ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway (still active: ${holding})`);
        process.exit(1);
      }, SHUTDOWN_DEADLINE_MS).unref();
      app.close().then(
        async () => {
          // The spans still batched go to the collector (at most 2 s) before the last line.
          await stopTracing();
          logger.log('shut down');
          process.exit(0);
        },
        (error: Error) => {
          logger.error(`shutdown failed: ${error.message}`);
          process.exit(1);
        },
      );
    });
  }
}

void main();
