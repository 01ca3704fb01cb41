import type { AppendResult, StoredEvent } from './event-store';
import { StoredRow } from './stored-row';
import { MAX_RECENT_WEIGHT, weightOf } from './event-weight';

/** One acknowledged append as the writer stored it: data and metadata as their JSON text. */
export interface CommittedAppend {
  streamId: string;
  rows: readonly { id: string; type: string; data: string; metadata: string; occurredAt: string; schemaVersion: number; tenantId: string }[];
  result: AppendResult;
}

/** The event at `index` of one acknowledged append, as a read would return it. */
function eventOf({ streamId, rows, result }: CommittedAppend, index: number): StoredEvent {
  // An append's events have consecutive revisions and positions, ending at the result's.
  const back = rows.length - 1 - index;
  const row = rows[index];
  return new StoredRow(
    row.id,
    streamId,
    result.nextRevision - back,
    result.position - back,
    row.type,
    row.data,
    row.metadata,
    row.occurredAt,
    row.schemaVersion,
  );
}

/** The events of one acknowledged append, as a read would return them. */
export const storedEventsOf = (append: CommittedAppend): StoredEvent[] => append.rows.map((_, index) => eventOf(append, index));

/** The last event of one acknowledged append, alone (its stream's head). */
export const lastEventOf = (append: CommittedAppend): StoredEvent => eventOf(append, append.rows.length - 1);

/**
 * Events kept per stream (its newest ones), at least; a follower further behind reads the store.
 * A run grows to twice this before it is cut back, so a commit extends it in place instead of
 * copying the whole run (which cost a 256-element copy per streamed delta).
 */
export const EVENTS_PER_STREAM = 1_024;
/** Streams kept, and at most MAX_RECENT_WEIGHT of events in all; the stream updated longest ago goes first. */
const STREAMS = 4_096;

/**
 * The newest events this process has had in its hands for each followed stream: what it just
 * committed, or what a scan of other instances' commits just read. A woken follower whose next
 * revision is among them takes them from here instead of reading back those rows.
 *
 * Each stream's entry is a run of consecutive revisions ending at the newest revision this process
 * knows of, and it is updated before the wake-up that announces it. A follower registers its
 * wake-up before it looks here, so whatever it finds here is either everything up to a head no
 * later commit has passed yet, or the later commit wakes it again. An entry is never replaced by an
 * older run; a follower behind the run reads the store. So this can save reads, never lose an event.
 */
export class RecentEvents {
  private readonly runs = new Map<string, StoredEvent[]>();
  private readonly weights = new Map<string, number>();
  private weight = 0;

  constructor(private readonly budget = MAX_RECENT_WEIGHT) {}

  /**
   * What this process committed; `followed` says which streams someone follows right now, and
   * `eventsOf` builds each append's events (the caller's, when it has built them already).
   */
  recordAppends(
    appends: readonly CommittedAppend[],
    followed: (streamId: string) => boolean,
    eventsOf: (append: CommittedAppend, index: number) => StoredEvent[] = storedEventsOf,
  ): void {
    for (const [index, append] of appends.entries()) {
      if (followed(append.streamId)) this.record(append.streamId, eventsOf(append, index));
      else this.forget(append.streamId);
    }
  }

  /**
   * Events read from the store in position order. For each stream they must run to its head as of
   * that read, with no revision missing (positions follow revisions within a stream).
   */
  recordRead(events: readonly StoredEvent[]): void {
    const byStream = new Map<string, StoredEvent[]>();
    for (const event of events) {
      const list = byStream.get(event.streamId);
      if (list) list.push(event);
      else byStream.set(event.streamId, [event]);
    }
    for (const [streamId, run] of byStream) this.record(streamId, run);
  }

  /**
   * The stream's events after revision `after` (at most `limit` of them) when the entry holds the
   * next one; else null (read the store).
   */
  after(streamId: string, after: number, limit?: number): StoredEvent[] | null {
    const run = this.runs.get(streamId);
    if (!run) return null;
    const from = after + 1 - run[0].revision;
    if (!(from >= 0 && from < run.length)) return null;
    return limit === undefined ? run.slice(from) : run.slice(from, from + limit);
  }

  /** Forgets every stream: commits may have happened that this process was not told of. */
  clear(): void {
    this.runs.clear();
    this.weights.clear();
    this.weight = 0;
  }

  /** `run` may be shared with other followers: it is copied, never kept and grown. */
  private record(streamId: string, run: readonly StoredEvent[]): void {
    const known = this.runs.get(streamId);
    const head = run[run.length - 1].revision;
    const knownHead = known ? known[known.length - 1].revision : -1;
    if (known && head <= knownHead) return;
    // A run that continues the known one extends it (what `after` handed out are copies); one with
    // a gap before it starts afresh.
    let kept: StoredEvent[];
    let weight: number;
    if (known && run[0].revision <= knownHead + 1) {
      const first = knownHead + 1 - run[0].revision;
      for (let k = first; k < run.length; k++) known.push(run[k]);
      kept = known;
      weight = (this.weights.get(streamId) ?? 0) + weightOf(run, first);
    } else {
      kept = run.slice(-EVENTS_PER_STREAM);
      weight = weightOf(kept);
    }
    if (kept.length > 2 * EVENTS_PER_STREAM) weight -= weightOf(kept.splice(0, kept.length - EVENTS_PER_STREAM));
    this.forget(streamId);
    this.runs.set(streamId, kept);
    this.weights.set(streamId, weight);
    this.weight += weight;
    while (this.runs.size > STREAMS || this.weight > this.budget) this.forget(this.runs.keys().next().value as string);
  }

  private forget(streamId: string): void {
    this.weight -= this.weights.get(streamId) ?? 0;
    this.weights.delete(streamId);
    this.runs.delete(streamId);
  }
}
