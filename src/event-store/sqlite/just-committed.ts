import type { StoredEvent } from '../event-store';
import type { Acknowledged } from './writer-client';

/**
 * The events of the latest commit, kept for the streams someone was following when it was
 * acknowledged: a woken follower whose next revision is among them takes them from here instead
 * of reading back the rows the writer was just handed. Anything else (a follower further behind,
 * a stream of an older commit) reads the store, so this can only save reads, never lose events.
 */
export class JustCommitted {
  private latest = new Map<string, StoredEvent[]>();

  record(appends: readonly Acknowledged[], followed: (streamId: string) => boolean): void {
    const next = new Map<string, StoredEvent[]>();
    for (const { streamId, rows, result } of appends) {
      if (!followed(streamId)) continue;
      // One writer, one transaction per append: its events have consecutive revisions and positions.
      const firstRevision = result.nextRevision - rows.length + 1;
      const firstPosition = result.position - rows.length + 1;
      const events = rows.map<StoredEvent>((row, k) => ({
        id: row.id,
        streamId,
        revision: firstRevision + k,
        position: firstPosition + k,
        type: row.type,
        data: JSON.parse(row.data) as Record<string, unknown>,
        metadata: JSON.parse(row.metadata) as StoredEvent['metadata'],
        occurredAt: row.occurredAt,
      }));
      next.set(streamId, [...(next.get(streamId) ?? []), ...events]);
    }
    this.latest = next;
  }

  /** The stream's events after revision `after`, when the latest commit holds the next one; else null. */
  after(streamId: string, after: number): StoredEvent[] | null {
    const events = this.latest.get(streamId);
    if (!events) return null;
    const from = after + 1 - events[0].revision;
    return from >= 0 && from < events.length ? events.slice(from) : null;
  }
}
