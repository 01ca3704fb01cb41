import { NestApplicationOptions } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { AppModule } from './app.module';
import { installAuthentication } from './auth/authentication.hook';
import { Authenticator } from './auth/authenticator';
import { Config } from './config/config';
import { installCheapAsyncResourceBind } from './http/async-resource-bind';
import { capConnections, connectionOptions } from './http/connection-limits';
import { drainBounds, installBodyDrain } from './http/drain-request-body';
import { installEdgeHeaders } from './http/edge-headers';
import { clientErrorHandler, frameworkErrorHandler, installClosingAnswer, installExpectationPassThrough, installHostCheck } from './http/framework-errors';
import { installJsonBody } from './http/json-body';
import { installRateLimit } from './http/rate-limit';
import { installRequestLog } from './http/request-log';
import { nestLogger, rootLogger, setLogLevel } from './observability/logger';
import { requestIdOf } from './observability/request-id';
import { setupApiDocs } from './openapi/api-docs';
import { installConsole } from './http/console-static';
import { jsonOf } from './common/json-text';

/** Builds the whole application for a configuration; main.ts and the e2e tests both use it. */
export async function createApp(config: Config): Promise<NestFastifyApplication> {
  // Before any logger is made: children keep the level they were made with.
  setLogLevel(config.logLevel);
  installCheapAsyncResourceBind();
  const authenticator = new Authenticator(config.auth, { failuresPerMinute: config.authFailuresPerMinute });
  const limits = connectionOptions(config);
  const adapter = new FastifyAdapter({
    // JSON lines through the one pino logger; request ids from X-Request-Id or generated, and one
    // line per request from request-log.ts instead of Fastify's two.
    loggerInstance: rootLogger(),
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdOf,
    // Behind a load balancer, the client's address (which failed authentications are counted
    // under) comes from X-Forwarded-For, as far as TRUST_PROXY trusts the hops that wrote it.
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Ids in paths are opaque (docs/api.md#conventions): an id of any length must reach the route and answer 404, not
    // Fastify's raw 414 for params over its default 100 characters (Node caps the URL at 16 KiB).
    routerOptions: { maxParamLength: 16 * 1024 },
    // Answers Fastify and Node give before any hook or Nest filter runs come in the envelope too:
    // the first two by handlers here, the last two by hooks below (see framework-errors.ts).
    frameworkErrors: frameworkErrorHandler(authenticator, drainBounds(config.bodyLimitBytes)),
    clientErrorHandler,
    // Late requests are answered 408 and closed (connection-limits.ts), by clientErrorHandler.
    requestTimeout: limits.requestTimeout,
    http: { ...limits.http, requireHostHeader: false },
    return503OnClosing: false,
  });
  const options: NestApplicationOptions = { bodyParser: false, abortOnError: false, logger: nestLogger() };
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, options);
  const fastify = app.getHttpAdapter().getInstance();
  capConnections(fastify.server, config);
  // Order matters: onRequest hooks run in the order they are added. Security headers and CORS
  // first (a preflight needs no key); then a closing server refuses; then auth, before anything
  // that looks at the request, and the per-tenant rate limit once the tenant is known.
  // The request's id, log context and closing line come before all of them (request-log.ts).
  installRequestLog(fastify);
  installEdgeHeaders(fastify, config.corsOrigins);
  installClosingAnswer(fastify);
  installAuthentication(fastify, authenticator);
  installRateLimit(fastify, config.rateLimitPerMinute);
  installHostCheck(fastify);
  installExpectationPassThrough(fastify.server);
  installJsonBody(fastify, config.bodyLimitBytes, config.maxJsonDepth);
  installBodyDrain(fastify, config.bodyLimitBytes);
  // JSON answers as JSON.stringify makes them, splicing in a value's text where it is already known
  // (a start's config: common/json-text.ts) instead of serializing it again.
  fastify.setReplySerializer((payload) => jsonOf(payload));
  // After the hooks, so the docs' routes pass through them like any other (auth exempts them).
  setupApiDocs(app);
  installConsole(fastify);
  return app;
}
