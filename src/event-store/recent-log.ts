import type { AllFilter, StoredEvent } from './event-store';
import { BoundedRun, MAX_RECENT_WEIGHT } from './event-weight';

/** Events kept (and at most MAX_RECENT_WEIGHT of them); a follower of `$all` further behind reads the store. */
const CAPACITY = 8_192;

/** Whether an event passes a filter: the tests the SQL of a filtered read makes (sqlite/event-rows.ts). */
export function matchesFilter(filter: AllFilter, event: StoredEvent): boolean {
  if (filter.tenantId !== undefined && event.metadata.tenantId !== filter.tenantId) return false;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((prefix) => event.streamId.startsWith(prefix))) return false;
  return !filter.types || filter.types.includes(event.type);
}

/**
 * The newest events of `$all` as one run of positions without a hole, for a store whose every
 * commit this process makes (SQLite, locked to one process): a woken follower of `$all` whose next
 * position is in the run takes its events from here instead of reading back the rows just written.
 *
 * Each commit's events are recorded before the wake-up that announces it, and a follower registers
 * its wake-up before it looks, as with RecentEvents. A commit whose first position does not follow
 * the run (a commit this process did not see the events of) starts a new run, and a follower
 * behind the run reads the store; so the run's last position is the log's head, and this can save
 * reads, never lose an event.
 */
export class RecentLog {
  private readonly run: BoundedRun;

  constructor(budget = MAX_RECENT_WEIGHT) {
    this.run = new BoundedRun(CAPACITY, budget);
  }

  /** One commit's events, in position order. */
  record(events: readonly StoredEvent[]): void {
    if (events.length === 0) return;
    const last = this.run.events.at(-1)?.position;
    if (last === undefined || events[0].position !== last + 1) this.run.clear();
    this.run.push(events);
  }

  /** Forget everything: a commit may have happened whose events this process never had. */
  clear(): void {
    this.run.clear();
  }

  /** The events after `position` and the head when the run holds what follows it; else null (read the store). */
  after(position: number): { events: StoredEvent[]; head: number } | null {
    const first = this.run.events[0]?.position;
    if (first === undefined) return null;
    const head = first + this.run.events.length - 1;
    if (position < first - 1 || position > head) return null;
    return { events: this.run.events.slice(position + 1 - first), head };
  }
}
