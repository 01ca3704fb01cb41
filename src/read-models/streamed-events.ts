import type { AllSubscriptionItem, StoredEvent } from '../event-store/event-store';
import { STREAMED_EVENT_TYPES } from '../executions/domain/execution-events';

/** `items` without each streamed event that a later event of its own stream follows; the same array when none is. */
function withoutSuperseded<T>(items: readonly T[], eventOf: (item: T) => StoredEvent | null): T[] {
  const later = new Set<string>();
  const kept: T[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const event = eventOf(items[i]);
    if (event && later.has(event.streamId)) {
      if (!STREAMED_EVENT_TYPES.has(event.type)) kept.push(items[i]);
    } else {
      if (event) later.add(event.streamId);
      kept.push(items[i]);
    }
  }
  return kept.length === items.length ? (items as T[]) : kept.reverse();
}

/**
 * The batch without each streamed event that a later event of its own stream follows in it. Every
 * projection makes the same rows of either (projections.spec.ts checks each), and while executions
 * stream most of a batch is deltas: each one dropped here is one the projector thread is not sent
 * (a structured clone on the event loop), nor groups and folds.
 */
export const withoutSupersededStreamed = (events: readonly StoredEvent[]): StoredEvent[] => withoutSuperseded(events, (event) => event);

/** The same for a subscription's items, checkpoints kept in place: what the projector's processor buffers. */
export const itemsWithoutSupersededStreamed = (items: readonly AllSubscriptionItem[]): AllSubscriptionItem[] =>
  withoutSuperseded(items, (item) => (item.kind === 'event' ? item.event : null));
