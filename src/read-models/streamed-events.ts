import type { StoredEvent } from '../event-store/event-store';

/**
 * Event types that change the read models only through their stream's last sequence (the
 * executions projection's progress; every other projection passes them by), so of a run of them
 * only the last one counts.
 */
export const STREAMED_TYPES: ReadonlySet<string> = new Set(['output.text.delta', 'provider.event']);

/**
 * The batch without each streamed event that a later event of its own stream follows in it. Every
 * projection makes the same rows of either (projections.spec.ts checks each), and while executions
 * stream most of a batch is deltas: each one dropped here is one the projector thread is not sent
 * (a structured clone on the event loop), nor groups and folds. The same array when none is dropped.
 */
export function withoutSupersededStreamed(events: readonly StoredEvent[]): StoredEvent[] {
  const later = new Set<string>();
  const kept: StoredEvent[] = [];
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (later.has(event.streamId)) {
      if (!STREAMED_TYPES.has(event.type)) kept.push(event);
    } else {
      later.add(event.streamId);
      kept.push(event);
    }
  }
  return kept.length === events.length ? (events as StoredEvent[]) : kept.reverse();
}
