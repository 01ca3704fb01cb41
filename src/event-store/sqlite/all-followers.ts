import { AllFilter, AllSubscriptionItem, FilteredSubscribeOptions, StoredEvent } from '../event-store';
import { CommittedAppend, storedEventsOf } from '../recent-events';
import { RecentLog, matchesFilter } from '../recent-log';
import { asStoreUnavailable } from '../sqlite-errors';
import { ALL_STREAMS, WakeHub } from '../wake-hub';
import { EventRow, FilteredStatements, toStored } from './event-rows';
import type { AcknowledgedPosition } from './acknowledged-position';

/** Rows one read of a subscription takes at most. */
export const READ_CHUNK = 1000;

/**
 * The filtered subscriptions to `$all` of the SQLite store (the projectors, the owner's follower,
 * the webhook deliverers): each woken one takes the commit's events from memory when it is caught
 * up (RecentLog), and reads the file otherwise.
 */
export class AllFollowers {
  private readonly log = new RecentLog();
  /** Subscriptions running now: while there are none, commits need not be kept in `log`. */
  private running = 0;

  constructor(
    private readonly filtered: FilteredStatements,
    private readonly signals: WakeHub,
    /** Reads stop here: every position up to it is committed and told of, so it is the checkpoint after a short chunk. */
    private readonly acknowledged: AcknowledgedPosition,
    private readonly closed: () => boolean,
  ) {}

  /**
   * Keeps one commit's events for the subscriptions, before their wake-up. Answers each append's
   * events when it built them (for the streams' followers to share), null when nobody follows `$all`.
   */
  committed(appends: readonly CommittedAppend[]): StoredEvent[][] | null {
    if (this.running === 0) {
      this.log.clear();
      return null;
    }
    const events = appends.map(storedEventsOf);
    this.log.record(events.flat().sort((a, b) => a.position - b.position));
    return events;
  }

  /** A commit may have happened whose events this process was never told of (the writer thread died). */
  lost(): void {
    this.log.clear();
  }

  /**
   * Filtered in SQL, or in memory from what was just committed (when the log holds the next
   * position). A chunk of the file is read up to the acknowledged position, so after a short one
   * everything up to that position has been seen: that is the checkpoint.
   */
  async *follow({ filter, after, signal }: FilteredSubscribeOptions): AsyncGenerator<AllSubscriptionItem> {
    const chunk = this.filtered.get(filter, String(READ_CHUNK));
    const readChunk = (from: number) => {
      const head = this.acknowledged.value;
      return { rows: chunk.all(from, head), head };
    };
    let cursor = after ?? 0;
    this.running++;
    try {
      while (!this.closed() && !signal?.aborted) {
        const wait = this.signals.wait(ALL_STREAMS, signal);
        try {
          const { events, head, full } = this.next(cursor, filter, readChunk);
          for (const event of events) {
            yield { kind: 'event', event };
            cursor = event.position;
            if (signal?.aborted) return;
          }
          if (full) continue;
          if (head > cursor) {
            cursor = head;
            yield { kind: 'checkpoint', position: head };
          }
          await wait.promise;
        } finally {
          wait.cancel();
        }
      }
    } finally {
      this.running--;
    }
  }

  /** What follows `cursor`: from memory when the log holds it, else one chunk of the file (`full`: more may follow). */
  private next(
    cursor: number,
    filter: AllFilter,
    readChunk: (from: number) => { rows: EventRow[]; head: number },
  ): { events: StoredEvent[]; head: number; full: boolean } {
    const recent = this.log.after(cursor);
    if (recent) return { events: recent.events.filter((event) => matchesFilter(filter, event)), head: recent.head, full: false };
    try {
      const { rows, head } = readChunk(cursor);
      return { events: rows.map(toStored), head, full: rows.length === READ_CHUNK };
    } catch (error) {
      throw asStoreUnavailable(error);
    }
  }
}
