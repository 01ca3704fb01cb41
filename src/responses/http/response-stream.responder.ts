import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CONFIG, Config } from '../../config/config';
import { SseConnections } from '../../http/sse-connections';
import { sseMessage, startSse } from '../../http/sse-response';
import { ResponseReader } from '../response-reader';

/**
 * A response's stream (docs/responses-api.md#streaming): its events from the start of its turn,
 * those after `startingAfter` written, live ones followed to its end, with the execution stream's
 * keep-alives and per-tenant cap. A replay with nothing left is an ordinary, empty stream (not a
 * 204), which the OpenAI SDKs read as the end.
 */
@Injectable()
export class ResponseStreamResponder {
  constructor(
    private readonly reader: ResponseReader,
    @Inject(CONFIG) private readonly config: Config,
    private readonly connections: SseConnections,
  ) {}

  async respond(reply: FastifyReply, tenantId: string, id: string, startingAfter: number): Promise<void> {
    // The 404 is a JSON answer: decided before the reply is taken over.
    const { ref } = await this.reader.load(tenantId, id);
    const sse = startSse(reply, this.connections, this.config.sseKeepAliveMs, tenantId);
    if (!sse) return;
    try {
      for await (const event of this.reader.follow(ref, sse.signal)) {
        if (event.sequence_number > startingAfter) await sse.send(sseMessage(event.sequence_number, event.type, JSON.stringify(event)));
      }
    } catch (error) {
      // The client left or the process stops: the stream just ends.
      if (!sse.signal.aborted) throw error;
    } finally {
      sse.end();
    }
  }
}
