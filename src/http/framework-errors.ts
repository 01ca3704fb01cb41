import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IncomingMessage, STATUS_CODES, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger as Pino } from 'pino';
import { linesOn } from '../observability/request-context';
import { authenticate } from '../auth/authentication.hook';
import { Authenticator } from '../auth/authenticator';
import { ApiError, errorEnvelope } from './api-error';
import { openAiErrorBody, speaksOpenAiErrors } from './openai-error';
import { applicationErrorToApi } from './application-errors';
import { DrainBounds, drainRequestBody } from './drain-request-body';
import { trackUnroutedRequest } from './request-log';

/** Router errors raised before any hook or route runs, by code. */
function fromRouterError(error: FastifyError, request: FastifyRequest): ApiError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError('VALIDATION_ERROR', 'the request path has a malformed percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Ids are opaque (docs/api.md#conventions): one too long to route cannot exist.
      return new ApiError('NOT_FOUND', 'no such resource');
    default:
      linesOn(request.log as Pino, 'HTTP').error(`router error ${error.code}: ${error.message}`);
      return new ApiError('VALIDATION_ERROR', 'the request could not be routed');
  }
}

/**
 * Fastify's `frameworkErrors`: these requests bypass every hook and Nest's exception filter, so
 * this answers them itself — authentication first, as for any other request, then the binding's
 * envelope.
 */
export function frameworkErrorHandler(authenticator: Authenticator, drain: DrainBounds) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void =>
    // Its request id, log context and closing line, as the first onRequest hook gives the others.
    trackUnroutedRequest(request, reply, () => answerRouterError(authenticator, drain, error, request, reply));
}

function answerRouterError(authenticator: Authenticator, drain: DrainBounds, error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void (async () => {
    let answer: ApiError;
    try {
      await authenticate(authenticator, request);
      answer = fromRouterError(error, request);
    } catch (refusal) {
      answer = applicationErrorToApi(refusal) ?? new ApiError('VALIDATION_ERROR', 'the request could not be routed');
    }
    reply.headers(answer.headers);
    if (!(await drainRequestBody(request.raw, drain))) reply.header('connection', 'close');
    const body = speaksOpenAiErrors(request.url) ? openAiErrorBody(answer) : errorEnvelope(answer);
    await reply.status(answer.status).type('application/json; charset=utf-8').send(body);
  })().catch((failure) => {
    linesOn(request.log as Pino, 'HTTP').error(`answering a router error failed: ${(failure as Error).message}`);
    if (!reply.raw.headersSent) reply.raw.destroy();
  });
}

/**
 * How long a connection whose request failed (clientErrorHandler) may stay open after its answer.
 * Closing at once, with the client's unread bytes still arriving, makes the kernel send a reset
 * that can destroy the answer before the client reads it; waiting for the client to close, as
 * `end()` alone does, lets a client that never closes keep the socket and its buffered body.
 */
const ANSWER_LINGER_MS = 1000;

/**
 * Node's `clientError`: the request could not even be parsed (bad header syntax, headers too
 * large), or did not arrive within REQUEST_TIMEOUT_MS. There is no request to authenticate; the
 * answer is written to the socket directly, in the envelope (408 for a late request, code
 * VALIDATION_ERROR like every other refusal of what the client sent), and the connection closes.
 * A response already under way on the socket cannot be followed by another: that socket is only
 * closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request did not arrive in time']
        : [400, 'the request is not valid HTTP'];
  const body = JSON.stringify(errorEnvelope(new ApiError('VALIDATION_ERROR', message, undefined, status)));
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
  const linger = setTimeout(() => socket.destroy(), ANSWER_LINGER_MS);
  socket.once('close', () => clearTimeout(linger));
}

/**
 * Node answers an HTTP/1.1 request without `Host` with an empty 400 of its own unless told not to
 * (`http.requireHostHeader: false`); this hook gives the same refusal in the envelope, after auth.
 */
export function installHostCheck(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError('VALIDATION_ERROR', 'an HTTP/1.1 request needs a Host header');
    }
  });
}

/**
 * Node answers an `Expect` other than `100-continue` with a bare 417 of its own, before any hook
 * (auth included) and outside the envelope. The expectation is ignored instead, as RFC 9110
 * allows (https://www.rfc-editor.org/rfc/rfc9110#section-10.1.1), and the request is served like
 * any other — which is what Node itself does once something listens for `checkExpectation`.
 */
export function installExpectationPassThrough(server: Server): void {
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => server.emit('request', request, response));
}

/**
 * While it closes, Fastify answers requests that still arrive on open keep-alive connections with
 * a 503 body of its own (`return503OnClosing`). With that option off, this hook gives the same
 * answer in the envelope, with Retry-After, before anything else runs — auth included; and a
 * connection whose answer goes out while closing is closed once it is idle.
 */
export function installClosingAnswer(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  // A request already in flight when the server closes is answered after Node closed the idle
  // connections once: left open, its connection would hold the close for keepAliveTimeout (72 s).
  // Once its answer is out it is idle, and goes; a request pipelined behind it still gets its 503.
  fastify.addHook('onResponse', async () => {
    if (closing) setImmediate(() => fastify.server.closeIdleConnections());
  });
  fastify.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('retry-after', '1').header('connection', 'close');
    throw new ApiError('SERVICE_UNAVAILABLE', 'the server is shutting down; retry shortly');
  });
}
