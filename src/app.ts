import { LogLevel, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { Config } from './config/config';
import { installJsonBody } from './http/json-body';
import { installRequestLog } from './http/request-log';

const LEVELS: Record<Config['logLevel'], LogLevel[] | false> = {
  silent: false,
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
};

/** Builds the whole application for a configuration; main.ts and the e2e tests both use it. */
export async function createApp(config: Config): Promise<NestFastifyApplication> {
  // Ids in paths are opaque (§1): an id of any length must reach the route and answer 404, not
  // Fastify's raw 414 for params over its default 100 characters (Node caps the URL at 16 KiB).
  const adapter = new FastifyAdapter({ bodyLimit: config.bodyLimitBytes, routerOptions: { maxParamLength: 16 * 1024 } });
  const options: NestApplicationOptions = { bodyParser: false, abortOnError: false, logger: LEVELS[config.logLevel] };
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, options);
  installJsonBody(app.getHttpAdapter().getInstance(), config.bodyLimitBytes);
  installRequestLog(app.getHttpAdapter().getInstance());
  return app;
}
