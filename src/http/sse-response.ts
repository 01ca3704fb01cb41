import type { FastifyReply } from 'fastify';
import { once } from 'node:events';
import { ApiError } from './api-error';
import { SseConnections } from './sse-connections';

export interface SseResponse {
  /** Aborted when the client leaves or the process stops. */
  signal: AbortSignal;
  /** Writes SSE text, waiting for the socket to drain, so a slow client holds its reader back. */
  send(text: string): Promise<void>;
  /** Ends the response (the final chunk) and stops the keep-alives. */
  end(): void;
}

export const SSE_CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** Seconds a client over its cap of open streams is told to wait (streams end as runs end). */
export const SSE_CAP_RETRY_AFTER_SECONDS = 5;

/**
 * Takes over the reply for an event stream (docs/api.md#events), or answers a HEAD request's headers and returns
 * null. Every JSON answer must have been decided before.
 * The last of them is here: a tenant that already holds SSE_MAX_STREAMS_PER_TENANT open streams
 * gets `429 RATE_LIMITED` with Retry-After (thrown, so the exception filter renders it), checked
 * and counted in one synchronous step, so concurrent requests cannot both take the last place.
 * Headers set through `reply.header()` and hooks are copied, because raw writes bypass them.
 */
export function startSse(reply: FastifyReply, connections: SseConnections, keepAliveMs: number, tenantId: string): SseResponse | null {
  if (!connections.hasRoom(tenantId)) {
    reply.header('retry-after', String(SSE_CAP_RETRY_AFTER_SECONDS));
    throw new ApiError(
      'RATE_LIMITED',
      `too many open event streams: at most ${connections.maxPerTenant} per tenant (SSE_MAX_STREAMS_PER_TENANT); close one or retry later`,
    );
  }
  // Also on the reply itself, which raw writes bypass: the onResponse hooks (the metrics) tell a stream from a request by it.
  reply.header('content-type', SSE_CONTENT_TYPE);
  reply.hijack();
  const raw = reply.raw;
  // HEAD gets the stream's headers and nothing more (null: nothing to stream). Node drops every
  // write to a HEAD response, the headers included until end(): a stream would never answer.
  const headOnly = reply.request.method === 'HEAD';
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': SSE_CONTENT_TYPE,
    'cache-control': 'no-cache',
    ...(headOnly ? {} : { connection: 'keep-alive' }),
    'x-accel-buffering': 'no',
  });
  if (headOnly) {
    raw.end();
    return null;
  }
  raw.write('retry: 1000\n\n');
  const signal = connections.track(raw, tenantId);
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), keepAliveMs);
  return {
    signal,
    // Not async: a write the socket took (every live event of a client that keeps up) answers
    // the one settled promise, instead of a new promise per event.
    send(text) {
      if (!text || raw.write(text)) return WRITTEN;
      return once(raw, 'drain', { signal }).then(ignore, ignore);
    },
    end() {
      clearInterval(keepAlive);
      raw.end();
    },
  };
}

const WRITTEN = Promise.resolve();
const ignore = (): void => undefined;

/** One SSE message. */
export const sseMessage = (id: number, event: string, data: string): string => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
