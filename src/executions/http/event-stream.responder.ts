import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { once } from 'node:events';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { SseConnections } from '../../http/sse-connections';
import { TERMINAL_EVENT_TYPES } from '../domain/execution-events';
import { isTerminal } from '../domain/execution-state';
import { executionStream, toEnvelope } from '../execution-stream';
import { loadOwnedExecution } from '../queries/load-owned-execution';

/**
 * The event stream of §5: the backlog after the cursor, then live events through the terminal
 * event, all read from the execution's stream by one catch-up subscription (rule 6), so the
 * hand-over from backlog to live can neither skip nor repeat an event.
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
    const { state } = await loadOwnedExecution(this.store, executionId, tenantId);
    if (isTerminal(state.status) && cursor >= state.lastSequence) {
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
    const from = Math.min(cursor, state.lastSequence);
    try {
      for await (const event of this.store.subscribeToStream(executionStream(executionId), { after: from - 1, signal })) {
        const envelope = toEnvelope(event);
        if (envelope.sequence > cursor) {
          const flushed = raw.write(`id: ${envelope.sequence}\nevent: ${envelope.type}\ndata: ${JSON.stringify(envelope)}\n\n`);
          // A slow client holds the reader back instead of growing this process's memory.
          if (!flushed) await once(raw, 'drain', { signal }).catch(() => undefined);
        }
        if (TERMINAL_EVENT_TYPES.has(envelope.type)) break;
      }
    } finally {
      clearInterval(keepAlive);
      raw.end();
    }
  }
}
