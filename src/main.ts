import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { ConfigError, loadConfig } from './config/config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  const logger = new Logger('Runledger');
  let app;
  try {
    app = await createApp(config);
    await app.listen(config.port, config.host);
  } catch (error) {
    process.stderr.write(`Runledger could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  logger.log(`serving on ${await app.getUrl()} with the ${config.eventStore} event store`);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.log(`${signal} received, shutting down`);
      void app.close().then(() => process.exit(0));
    });
  }
}

void main();
