import type { FastifyReply } from 'fastify';
import { once } from 'node:events';
import { SseConnections } from './sse-connections';

export interface SseResponse {
  /** Aborted when the client leaves or the process stops. */
  signal: AbortSignal;
  /** Writes SSE text, waiting for the socket to drain, so a slow client holds its reader back. */
  send(text: string): Promise<void>;
  /** Ends the response (the final chunk) and stops the keep-alives. */
  end(): void;
}

/**
 * Takes over the reply for an event stream (§5): every JSON answer must have been decided before.
 * Headers set through `reply.header()` and hooks are copied, because raw writes bypass them.
 */
export function startSse(reply: FastifyReply, connections: SseConnections, keepAliveMs: number): SseResponse {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 1000\n\n');
  const signal = connections.track(raw);
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), keepAliveMs);
  return {
    signal,
    async send(text) {
      if (text && !raw.write(text)) await once(raw, 'drain', { signal }).catch(() => undefined);
    },
    end() {
      clearInterval(keepAlive);
      raw.end();
    },
  };
}

/** One SSE message. */
export const sseMessage = (id: number, event: string, data: string): string => `id: ${id}\nevent: ${event}\ndata: ${data}\n\n`;
