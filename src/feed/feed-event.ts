import { StoredEvent } from '../event-store/event-store';
import { dataJsonOf } from '../event-store/stored-row';
import { PROJECTED_STREAM_PREFIXES } from '../read-models/projection';

/** The audit feed holds the execution and conversation streams; idempotency claims are internal. */
export const FEED_STREAM_PREFIXES = PROJECTED_STREAM_PREFIXES;

/**
 * An event as the audit feed shows it: the execution envelope of docs/api.md#events (a conversation's events carry
 * `conversationId` in place of `executionId`) plus its integer global `position`.
 */
function ownerOf(event: StoredEvent): { key: 'executionId' | 'conversationId'; id: string } {
  const [prefix] = FEED_STREAM_PREFIXES.filter((p) => event.streamId.startsWith(p));
  return { key: prefix === 'execution-' ? 'executionId' : 'conversationId', id: event.streamId.slice(prefix.length) };
}

export function toFeedEvent(event: StoredEvent) {
  const { key, id } = ownerOf(event);
  return {
    ...(key === 'executionId' ? { executionId: id } : { conversationId: id }),
    sequence: event.revision + 1,
    type: event.type,
    occurredAt: event.occurredAt,
    data: event.data,
    position: event.position,
  };
}

export type FeedEvent = ReturnType<typeof toFeedEvent>;

/**
 * `JSON.stringify(toFeedEvent(event))`, with the data's stored text spliced in when the event has it
 * (stored-row.ts): a feed page's byte bound, a feed SSE frame, a webhook delivery's body.
 */
export function feedEventJson(event: StoredEvent): string {
  const { key, id } = ownerOf(event);
  return (
    `{"${key}":${JSON.stringify(id)},"sequence":${event.revision + 1},"type":${JSON.stringify(event.type)},` +
    `"occurredAt":${JSON.stringify(event.occurredAt)},"data":${dataJsonOf(event)},"position":${event.position}}`
  );
}
