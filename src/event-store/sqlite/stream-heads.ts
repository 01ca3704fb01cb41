import type { StoredEvent } from '../event-store';
import { StoredRow } from '../stored-row';

/** Streams whose head is kept; the one offered longest ago goes first. */
const STREAMS = 16_384;
/** An event whose data is longer (a `run.queued` with a large config) is not kept: its stream is read. */
const MAX_DATA_CHARS = 16_384;

/**
 * The last event of each stream this process wrote or read lately, so that "the stream's last
 * event", "its head" and "what follows revision n" need no read of the file when the answer is
 * that event or nothing: each read of the file after a commit on the writer thread costs ~35 µs
 * (the connection's page cache starts afresh), and a start, an SSE attach, a replay page and a read
 * by id each made two to four of them.
 *
 * Exact because the file is locked to this process: every commit reaches `offer` (through the
 * store's `committed`) before any caller of its append is answered, so an entry is its stream's
 * head as of every append acknowledged so far. A read may find a later event whose commit is being
 * acknowledged right then; it is kept too, and an entry is never replaced by an older event. A
 * newer event too large to keep removes the entry, and `clear` forgets everything when a commit
 * may have happened that this process was not told of (the writer thread died).
 */
export class StreamHeads {
  private readonly heads = new Map<string, StoredEvent>();

  get(streamId: string): StoredEvent | undefined {
    return this.heads.get(streamId);
  }

  offer(event: StoredEvent): void {
    const known = this.heads.get(event.streamId);
    if (known && known.revision >= event.revision) return;
    // Deleted first: a newer event not kept must not leave the older one as the head, and one
    // that is kept moves to the end of the eviction order.
    this.heads.delete(event.streamId);
    const text = StoredRow.textOf(event);
    if (text === undefined || text.length > MAX_DATA_CHARS) return;
    this.heads.set(event.streamId, event);
    if (this.heads.size > STREAMS) this.heads.delete(this.heads.keys().next().value as string);
  }

  clear(): void {
    this.heads.clear();
  }
}
