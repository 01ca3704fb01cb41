import { LogLevel, NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { installAuthentication } from './auth/authentication.hook';
import { Authenticator } from './auth/authenticator';
import { Config } from './config/config';
import { drainBounds, installBodyDrain } from './http/drain-request-body';
import { clientErrorHandler, frameworkErrorHandler, installClosingAnswer, installHostCheck } from './http/framework-errors';
import { installJsonBody } from './http/json-body';
import { installRequestLog } from './http/request-log';
import { setupApiDocs } from './openapi/api-docs';

const LEVELS: Record<Config['logLevel'], LogLevel[] | false> = {
  silent: false,
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
};

/** Builds the whole application for a configuration; main.ts and the e2e tests both use it. */
export async function createApp(config: Config): Promise<NestFastifyApplication> {
  const authenticator = new Authenticator(config.auth);
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    // Ids in paths are opaque (§1): an id of any length must reach the route and answer 404, not
    // Fastify's raw 414 for params over its default 100 characters (Node caps the URL at 16 KiB).
    routerOptions: { maxParamLength: 16 * 1024 },
    // Answers Fastify and Node give before any hook or Nest filter runs come in the envelope too:
    // the first two by handlers here, the last two by hooks below (see framework-errors.ts).
    frameworkErrors: frameworkErrorHandler(authenticator, drainBounds(config.bodyLimitBytes)),
    clientErrorHandler,
    http: { requireHostHeader: false },
    return503OnClosing: false,
  });
  const options: NestApplicationOptions = { bodyParser: false, abortOnError: false, logger: LEVELS[config.logLevel] };
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, options);
  const fastify = app.getHttpAdapter().getInstance();
  // Order matters: onRequest hooks run in the order they are added. A closing server refuses
  // first; then auth, before anything that looks at the request.
  installClosingAnswer(fastify);
  installAuthentication(fastify, authenticator);
  installHostCheck(fastify);
  installJsonBody(fastify, config.bodyLimitBytes);
  installBodyDrain(fastify, config.bodyLimitBytes);
  installRequestLog(fastify);
  // After the hooks, so the docs' routes pass through them like any other (auth exempts them).
  setupApiDocs(app);
  return app;
}
