import { Query } from '@nestjs/cqrs';
import { toEnvelope } from '../execution-stream';

export interface EventPage {
  events: ReturnType<typeof toEnvelope>[];
  lastSequence: number;
  terminal: boolean;
}

/** Events whose sequence is greater than `after`, at most `limit` of them. */
export class ReplayEventsQuery extends Query<EventPage> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
    readonly after: number,
    readonly limit: number | undefined,
  ) {
    super();
  }
}
