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
 * store's `committed`) before any caller of its append is answered and before any read of the
 * file can see it (acknowledged-position.ts), so an entry is its stream's head as every read sees
 * it. An entry is never replaced by an older event. A newer event too large to keep removes the
 * entry, and `clear` forgets everything when a commit may have happened that this process was not
 * told of (the writer thread died).
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

  /** What follows revision `after` when the head answers it (nothing, or the head alone); null: read the file. */
  tail(streamId: string, after: number, limit: number | undefined): StoredEvent[] | null {
    const head = this.heads.get(streamId);
    if (!head || (limit !== undefined && !(limit >= 1))) return null;
    if (head.revision <= after) return [];
    return head.revision === after + 1 ? [head] : null;
  }

  clear(): void {
    this.heads.clear();
  }
}

/** Streams whose tenant is kept (~100 bytes each); the one remembered longest ago goes first. */
const TENANTS_KEPT = 65_536;

/**
 * Each stream's tenant once read: its first event's, which never changes, so nothing makes an
 * entry stale. A stream with no event yet has none to keep.
 */
export class StreamTenants {
  private readonly tenants = new Map<string, string>();

  get(streamId: string): string | undefined {
    return this.tenants.get(streamId);
  }

  remember(streamId: string, tenantId: string): void {
    this.tenants.set(streamId, tenantId);
    if (this.tenants.size > TENANTS_KEPT) this.tenants.delete(this.tenants.keys().next().value as string);
  }
}
