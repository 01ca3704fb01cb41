import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CONFIG, Config } from '../../config/config';
import { readBounded } from '../../event-store/bounded-read';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionNotFoundError } from '../domain/execution-errors';
import { isTerminalEvent } from '../domain/execution-events';
import { envelopeJson, executionStream, toEnvelope } from '../execution-stream';
import { EventPage, ReplayEventsQuery } from './replay-events.query';

@QueryHandler(ReplayEventsQuery)
export class ReplayEventsHandler implements IQueryHandler<ReplayEventsQuery> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'limits'>,
  ) {}

  /**
   * Reads only what the answer needs: the stream's tenant (existence and ownership, from a column
   * rather than `run.queued`, whose `config` can be large), the page, and the stream's head with
   * its event (lastSequence, terminal) — never the whole stream. The head is read after the page,
   * so `lastSequence` is never below the page's last event.
   */
  async execute({ tenantId, executionId, after, limit }: ReplayEventsQuery): Promise<EventPage> {
    const stream = executionStream(executionId);
    if ((await this.store.streamTenant(stream)) !== tenantId) throw new ExecutionNotFoundError(executionId);
    // Bounded by bytes too: a page ends early (its last sequence below lastSequence) and the
    // client goes on from its last event.
    const { events: page } = await readBounded(
      (cursor, count) => this.store.readStream(stream, { after: cursor, limit: count }),
      (event) => event.revision,
      { after: after - 1, limit: limit ?? Infinity, maxBytes: this.config.limits.maxPageBytes, sizeOf: (event) => Buffer.byteLength(envelopeJson(event)) },
    );
    // The head's column first: a page that reaches it needs no second read of its (maybe large) last event.
    const head = (await this.store.streamHead(stream))!;
    const last = page.at(-1)?.revision === head ? page.at(-1)! : (await this.store.lastEvent(stream))!;
    return { events: page.map(toEnvelope), lastSequence: last.revision + 1, terminal: isTerminalEvent(last.type) };
  }
}
