import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG, Config } from '../../config/config';
import { readBounded } from '../../event-store/bounded-read';
import { EVENT_STORE, EventStore, StoredEvent } from '../../event-store/event-store';
import { SseConnections } from '../../http/sse-connections';
import { sseMessage, startSse } from '../../http/sse-response';
import { isTerminalEvent } from '../domain/execution-events';
import { envelopeJson, executionStream } from '../execution-stream';
import { ownedStreamSummary } from '../queries/stream-summary';

/** Backlog events per read and per write to the socket. */
const BACKLOG_PAGE = 1000;

const frame = (event: StoredEvent, json = envelopeJson(event)): string => sseMessage(event.revision + 1, event.type, json);

/**
 * The event stream of docs/api.md#events: the backlog after the cursor, read in pages and written a page at a
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
    const sse = startSse(reply, this.connections, this.config.sseKeepAliveMs, tenantId);
    if (!sse) return;
    const stream = executionStream(executionId);
    // Revisions are sequences - 1: `after` is the last revision sent (or skipped).
    let after = Math.min(cursor, state.lastSequence) - 1;
    // Each backlog event's envelope text, made once for the page's byte bound and kept for its frame.
    const texts = new Map<StoredEvent, string>();
    const sizeOf = (event: StoredEvent): number => {
      const json = envelopeJson(event);
      texts.set(event, json);
      return Buffer.byteLength(json);
    };
    // A cursor past the stream's end (a client's own) skips what it asked not to get again.
    const unsent = (event: StoredEvent): boolean => event.revision + 1 > cursor;
    // A slow client holds the reader back instead of growing this process's memory.
    const send = (events: StoredEvent[]) =>
      sse.send(
        events
          .filter(unsent)
          .map((e) => frame(e, texts.get(e)))
          .join(''),
      );
    try {
      let ended = false;
      while (!ended && !sse.signal.aborted) {
        const { events: page, truncated } = await readBounded(
          (cursor, count) => this.store.readStream(stream, { after: cursor, limit: count }),
          (event) => event.revision,
          { after, limit: BACKLOG_PAGE, maxBytes: this.config.limits.maxPageBytes, sizeOf },
        );
        if (page.length === 0) break;
        const end = page.findIndex((e) => isTerminalEvent(e.type));
        await send(end === -1 ? page : page.slice(0, end + 1));
        ended = end !== -1;
        texts.clear();
        after = page[page.length - 1].revision;
        if (page.length < BACKLOG_PAGE && !truncated) break;
      }
      if (!ended) {
        for await (const event of this.store.subscribeToStream(stream, { after, signal: sse.signal })) {
          // One frame, no page to filter and join: this runs once per live event per client.
          if (unsent(event)) await sse.send(frame(event));
          if (isTerminalEvent(event.type)) break;
        }
      }
    } finally {
      sse.end();
    }
  }
}
