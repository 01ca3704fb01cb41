import { LogLevel, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { Config } from './config/config';
import { installJsonBody } from './http/json-body';

const LEVELS: Record<Config['logLevel'], LogLevel[] | false> = {
  silent: false,
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
};

/** Builds the whole application for a configuration; main.ts and the e2e tests both use it. */
export async function createApp(config: Config): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: config.bodyLimitBytes });
  const options: NestApplicationOptions = { bodyParser: false, abortOnError: false, logger: LEVELS[config.logLevel] };
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, options);
  installJsonBody(app.getHttpAdapter().getInstance(), config.bodyLimitBytes);
  return app;
}
