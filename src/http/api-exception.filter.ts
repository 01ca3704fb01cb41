import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import type { Logger as Pino } from 'pino';
import { linesOn } from '../observability/request-context';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorEnvelope } from './api-error';
import { openAiErrorBody, speaksOpenAiErrors } from './openai-error';
import { redactedUrl } from '../observability/redacted-url';
import { StoreUnavailableError } from '../event-store/event-store';
import { STORE_RETRY_AFTER_SECONDS, applicationErrorToApi } from './application-errors';

/** Fastify's own errors (raised before a route runs), by code. */
function fromFastify(error: { code?: string; statusCode?: number; message?: string; expose?: boolean }): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('VALIDATION_ERROR', 'request body must be application/json', undefined, 415);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'request body is larger than the configured limit');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('VALIDATION_ERROR', 'request body length does not match Content-Length');
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && error.code?.startsWith('FST_'))) {
    return new ApiError('VALIDATION_ERROR', `malformed JSON body: ${error.message}`);
  }
  // @fastify/static (Swagger UI's files under /docs/) refuses a path it will not serve, `/docs/x/.`
  // with a bare 403 and `/docs/%00` with an http-errors 400, and a bad Range with a 416: a path
  // nothing serves is an unknown route, the others keep their status, in the envelope.
  if (error.statusCode === 403 || error.statusCode === 404) return new ApiError('NOT_FOUND', 'no such resource');
  if (error.expose === true && error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(
      'VALIDATION_ERROR',
      error.statusCode === 400 ? 'the request path is not valid' : (error.message ?? 'request refused'),
      undefined,
      error.statusCode,
    );
  }
  return null;
}

function fromHttpException(exception: HttpException, request: FastifyRequest): ApiError {
  const status = exception.getStatus();
  if (status === 404) return new ApiError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
  if (status === 413) return new ApiError('PAYLOAD_TOO_LARGE', 'request body is larger than the configured limit');
  if (status === 429) return new ApiError('RATE_LIMITED', exception.message);
  if (status === 503) return new ApiError('SERVICE_UNAVAILABLE', exception.message);
  if (status >= 500) return new ApiError('INTERNAL_ERROR', 'internal server error', undefined, status);
  return new ApiError('VALIDATION_ERROR', exception.message, undefined, status);
}

/**
 * Node's error for a request whose connection closed before its body had arrived (the client left,
 * or REQUEST_TIMEOUT_MS cut it off). Nobody is left to answer and nothing is wrong with the server:
 * it is not an error of ours, and one per hostile socket must not flood the log at error level.
 */
const clientLeft = (exception: unknown, request: FastifyRequest) => (exception as { code?: unknown } | null)?.code === 'ECONNRESET' && request.raw.destroyed;

/** The one place errors become the error envelope of docs/api.md#errors; never a stack trace on the wire. */
/** The request's own logger, so that its lines carry its `reqId` (and execution id). */
const linesOf = (request: FastifyRequest) => linesOn(request.log as Pino, 'HTTP');

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error =
      exception instanceof ApiError
        ? exception
        : (applicationErrorToApi(exception) ??
          (exception instanceof HttpException ? fromHttpException(exception, request) : fromFastify(exception as { code?: string; expose?: boolean })));
    if (reply.sent || reply.raw.headersSent) return;
    if (clientLeft(exception, request)) {
      // The request's own closing line (request-log.ts) says it too, at debug.
      linesOf(request).debug(`${request.method} ${request.url}: the client's connection closed before its request had arrived`);
      return;
    }
    if (!error) {
      linesOf(request).error(`${request.method} ${redactedUrl(request.url)} failed`, (exception as Error)?.stack);
      const internal = new ApiError('INTERNAL_ERROR', 'internal server error');
      void reply
        .status(500)
        .send(speaksOpenAiErrors(request.url) ? openAiErrorBody(internal) : { error: { code: 'INTERNAL_ERROR', message: 'internal server error' } });
      return;
    }
    if (exception instanceof StoreUnavailableError) {
      linesOf(request).warn(`${request.method} ${redactedUrl(request.url)}: 503, ${exception.message}`);
    }
    reply.headers(error.headers);
    // 503 and 429 always tell the client when to retry (docs/api.md#errors); the throwers set their own when they know better.
    if ((error.status === 503 || error.status === 429) && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', String(STORE_RETRY_AFTER_SECONDS));
    }
    void reply.status(error.status).send(speaksOpenAiErrors(request.url) ? openAiErrorBody(error) : errorEnvelope(error));
  }
}
