import { StoredEvent } from './event-store';

export interface BoundedPage {
  events: StoredEvent[];
  /** The byte bound ended the page before `limit` or the end of what there is. */
  truncated: boolean;
}

/**
 * Reads up to `limit` events after `after`, stopping before the event that would take the page
 * past `maxBytes` (always at least one event, so a page always moves on). It reads in chunks
 * that grow while events are small, so 1,000 events of a megabyte each are never in memory at
 * once, and 1,000 small ones still take a handful of reads.
 */
export async function readBounded(
  read: (after: number, limit: number) => Promise<StoredEvent[]>,
  cursorOf: (event: StoredEvent) => number,
  { after, limit, maxBytes, sizeOf }: { after: number; limit: number; maxBytes: number; sizeOf: (event: StoredEvent) => number },
): Promise<BoundedPage> {
  const events: StoredEvent[] = [];
  let bytes = 0;
  let chunk = 16;
  let cursor = after;
  while (events.length < limit) {
    const want = Math.min(chunk, limit - events.length);
    const page = await read(cursor, want);
    for (const event of page) {
      const size = sizeOf(event);
      if (events.length > 0 && bytes + size > maxBytes) return { events, truncated: true };
      events.push(event);
      bytes += size;
    }
    if (page.length < want) break;
    cursor = cursorOf(page[page.length - 1]);
    chunk *= 4;
  }
  return { events, truncated: false };
}
