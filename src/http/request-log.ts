import { trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as Pino } from 'pino';
import { redactedUrl } from '../observability/redacted-url';
import { openRequestLog } from '../observability/request-context';
import { routeTemplate } from './route-template';

/** An execution id as the runtime makes them (and not 16 KiB of whatever a caller put in a path). */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,64}$/;

function executionIdInRoute(request: FastifyRequest): string | null {
  const id = (request.params as { id?: unknown } | undefined)?.id;
  const route = request.routeOptions.url;
  return route?.startsWith('/v1/executions/:id') && typeof id === 'string' && PLAUSIBLE_ID.test(id) ? id : null;
}

const levelOf = (status: number) => (status === 503 ? 'warn' : status >= 500 ? 'error' : 'debug');

/**
 * Everything a request carries from its first hook on: its id (Fastify's `request.id`, from
 * `X-Request-Id` or generated, see request-id.ts) echoed in `X-Request-Id`; its log context
 * (request-context.ts), on Fastify's request logger (`reqId`) plus the execution id of an
 * `/v1/executions/{id}…` route; the route on its HTTP span when tracing is on;
 * and one closing line when the response ends or its connection closes (SSE streams included):
 * server errors as errors (503, an outage the client is told to wait out, as a warning), every
 * other request at debug level, so an operator can follow a failing client without drowning in
 * lines. The line has the request's headers (credentials redacted, see logger.ts) and its URL with
 * the query string's values redacted (redacted-url.ts), never its body.
 */
function track(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('x-request-id', request.id);
  const route = request.routeOptions.url;
  if (route) {
    const span = trace.getActiveSpan();
    if (span?.isRecording()) {
      span.updateName(`${request.method} ${routeTemplate(route)}`);
      span.setAttribute('http.route', routeTemplate(route));
    }
  }
  const log = openRequestLog(request.raw, request.log as Pino);
  const started = performance.now();
  reply.raw.once('close', () => {
    const status = reply.raw.statusCode;
    const level = levelOf(status);
    // The request's logger as it ends: with the execution id bound while it was handled.
    if (!log.logger.isLevelEnabled(level)) return;
    const ms = Math.round(performance.now() - started);
    const line = `${request.method} ${redactedUrl(request.raw.url ?? '')} ${status} ${ms} ms`;
    log.logger[level]({ req: request.raw, res: reply.raw, responseTime: ms }, reply.raw.writableFinished ? line : `${line} (closed before the response ended)`);
  });
  const executionId = executionIdInRoute(request);
  if (executionId) log.bindExecutionId(executionId);
  done();
}

/** Installed before every other onRequest hook, so that auth and early answers are covered too. */
export function installRequestLog(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', track);
}

/** For the requests Fastify's router answers before any hook runs (framework-errors.ts). */
export const trackUnroutedRequest = track;
