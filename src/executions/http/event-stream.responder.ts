import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { once } from 'node:events';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore, StoredEvent } from '../../event-store/event-store';
import { SseConnections } from '../../http/sse-connections';
import { TERMINAL_EVENT_TYPES } from '../domain/execution-events';
import { executionStream, toEnvelope } from '../execution-stream';
import { ownedStreamSummary } from '../queries/stream-summary';

/** Backlog events per read and per write to the socket. */
const BACKLOG_PAGE = 1000;

const frame = (event: StoredEvent): string => {
  const envelope = toEnvelope(event);
  return `id: ${envelope.sequence}\nevent: ${envelope.type}\ndata: ${JSON.stringify(envelope)}\n\n`;
};

/**
 * The event stream of §5: the backlog after the cursor, read in pages and written a page at a
 * time, then live events through the terminal event from a catch-up subscription that starts
 * after the last revision sent (rule 6), so the hand-over can neither skip nor repeat an event.
 */
@Injectable()
export class EventStreamResponder {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly connections: SseConnections,
  ) {}

  async respond(reply: FastifyReply, tenantId: string, executionId: string, cursor: number): Promise<void> {
    // Every JSON answer (404, 204) is decided before the response is hijacked.
    const state = await ownedStreamSummary(this.store, executionId, tenantId);
    if (state.terminal && cursor >= state.lastSequence) {
      await reply.status(204).send();
      return;
    }
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
    // Aborted when the client leaves or the process stops; either way the finally below ends the response.
    const signal = this.connections.track(raw);
    const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), this.config.sseKeepAliveMs);
    // A cursor past the head must still see the terminal event, or the stream would never close
    // (§5): read from the head at the latest and skip what the client already claims to have.
    const stream = executionStream(executionId);
    // Revisions are sequences - 1: `after` is the last revision sent (or skipped).
    let after = Math.min(cursor, state.lastSequence) - 1;
    // A slow client holds the reader back instead of growing this process's memory.
    const send = async (events: StoredEvent[]) => {
      const text = events.filter((e) => e.revision + 1 > cursor).map(frame).join('');
      if (text && !raw.write(text)) await once(raw, 'drain', { signal }).catch(() => undefined);
    };
    try {
      let ended = false;
      while (!ended && !signal.aborted) {
        const page = await this.store.readStream(stream, { after, limit: BACKLOG_PAGE });
        if (page.length === 0) break;
        const end = page.findIndex((e) => TERMINAL_EVENT_TYPES.has(e.type));
        await send(end === -1 ? page : page.slice(0, end + 1));
        ended = end !== -1;
        after = page[page.length - 1].revision;
        if (page.length < BACKLOG_PAGE) break;
      }
      if (!ended) {
        for await (const event of this.store.subscribeToStream(stream, { after, signal })) {
          await send([event]);
          if (TERMINAL_EVENT_TYPES.has(event.type)) break;
        }
      }
    } finally {
      clearInterval(keepAlive);
      raw.end();
    }
  }
}
