import { StoredEvent } from '../event-store/event-store';
import { PROJECTED_STREAM_PREFIXES } from '../read-models/projection';

/** The audit feed holds the execution and conversation streams; idempotency claims are internal. */
export const FEED_STREAM_PREFIXES = PROJECTED_STREAM_PREFIXES;

/**
 * An event as the audit feed shows it: the execution envelope of docs/api.md#events (a conversation's events carry
 * `conversationId` in place of `executionId`) plus its integer global `position`.
 */
export function toFeedEvent(event: StoredEvent) {
  const [prefix] = FEED_STREAM_PREFIXES.filter((p) => event.streamId.startsWith(p));
  const id = event.streamId.slice(prefix.length);
  return {
    ...(prefix === 'execution-' ? { executionId: id } : { conversationId: id }),
    sequence: event.revision + 1,
    type: event.type,
    occurredAt: event.occurredAt,
    data: event.data,
    position: event.position,
  };
}

export type FeedEvent = ReturnType<typeof toFeedEvent>;
