import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TERMINAL_EVENT_TYPES } from '../domain/execution-events';
import { executionStream, toEnvelope } from '../execution-stream';
import { EventPage, ReplayEventsQuery } from './replay-events.query';

@QueryHandler(ReplayEventsQuery)
export class ReplayEventsHandler implements IQueryHandler<ReplayEventsQuery> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tenantId, executionId, after, limit }: ReplayEventsQuery): Promise<EventPage> {
    // One read gives the page, the head and terminality from the same snapshot of the stream.
    const all = await this.store.readStream(executionStream(executionId));
    if (all.length === 0 || all[0].metadata.tenantId !== tenantId) {
      throw new ApiError('NOT_FOUND', `execution ${executionId} not found`);
    }
    const page = all.slice(after, limit === undefined ? undefined : after + limit);
    return {
      events: page.map(toEnvelope),
      lastSequence: all.length,
      terminal: TERMINAL_EVENT_TYPES.has(all[all.length - 1].type),
    };
  }
}
