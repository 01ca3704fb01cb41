import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { SseConnections } from '../http/sse-connections';
import { sseMessage, startSse } from '../http/sse-response';
import { FEED_STREAM_PREFIXES, feedEventJson } from './feed-event';

/**
 * The audit feed followed live: every event the tenant owns after the cursor, in global order,
 * `id:` its position so `Last-Event-ID` resumes. The store's checkpoints are not sent; the
 * keep-alive comments tell an idle client the stream is up.
 */
@Injectable()
export class FeedStreamResponder {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Config,
    private readonly connections: SseConnections,
  ) {}

  async respond(reply: FastifyReply, tenantId: string, after: number): Promise<void> {
    const sse = startSse(reply, this.connections, this.config.sseKeepAliveMs, tenantId);
    if (!sse) return;
    const filter = { tenantId, streamPrefixes: FEED_STREAM_PREFIXES };
    try {
      for await (const item of this.store.subscribeToAllFiltered({ filter, after, signal: sse.signal })) {
        if (item.kind !== 'event') continue;
        await sse.send(sseMessage(item.event.position, item.event.type, feedEventJson(item.event)));
      }
    } finally {
      sse.end();
    }
  }
}
