import type { StoredEvent } from './event-store';
import { StoredRow } from './stored-row';

/**
 * What the in-memory caches of recent events (recent-events.ts, recent-log.ts, postgres/all-tail.ts)
 * may hold together, each: an event weighs 256 plus its data's JSON characters. A count alone did
 * not bound them: 16,384 events of `run.queued` carrying 500 kB each held 2 GB.
 */
export const MAX_RECENT_WEIGHT = 32 * 1024 * 1024;

/** An event's weight in those caches: its data's JSON characters, plus 256 for the rest. */
export const eventWeight = (event: StoredEvent): number => 256 + (StoredRow.textOf(event)?.length ?? 0);

export function weightOf(events: readonly StoredEvent[], from = 0, to = events.length): number {
  let weight = 0;
  for (let k = from; k < to; k++) weight += eventWeight(events[k]);
  return weight;
}

/**
 * Where to cut the front of a run so that what is left weighs at most `budget` and counts at most
 * `count` events (possibly none, when its last event alone weighs more).
 */
export function keptFrom(events: readonly StoredEvent[], count: number, budget: number): number {
  let weight = 0;
  let from = events.length;
  while (from > 0 && events.length - from < count) {
    const next = weight + eventWeight(events[from - 1]);
    if (next > budget) break;
    weight = next;
    from--;
  }
  return from;
}

/**
 * The newest events of a log, at most `count` (and `budget` of weight) after a cut: both `$all`
 * runs (recent-log.ts, postgres/all-tail.ts) keep theirs here. It grows to twice the count or to
 * the budget, then is cut back to the count and half the budget, so each cut copies once per half.
 */
export class BoundedRun {
  private list: StoredEvent[] = [];
  private weight = 0;

  constructor(
    private readonly count: number,
    private readonly budget = MAX_RECENT_WEIGHT,
  ) {}

  get events(): readonly StoredEvent[] {
    return this.list;
  }

  /** Adds events after the last; answers the last event cut from the front, if a cut happened. */
  push(events: readonly StoredEvent[]): StoredEvent | undefined {
    this.list.push(...events);
    this.weight += weightOf(events);
    if (this.list.length <= 2 * this.count && this.weight <= this.budget) return undefined;
    const kept = keptFrom(this.list, this.count, this.budget / 2);
    const lastCut = this.list[kept - 1];
    this.weight -= weightOf(this.list, 0, kept);
    this.list = this.list.slice(kept);
    return lastCut;
  }

  /**
   * Drops the events at or before `position` from the front, but never the newest `keep`; answers
   * the last event dropped, if any.
   */
  dropThrough(position: number, keep: number): StoredEvent | undefined {
    const limit = this.list.length - keep;
    let count = 0;
    while (count < limit && this.list[count].position <= position) count++;
    if (count === 0) return undefined;
    const last = this.list[count - 1];
    this.weight -= weightOf(this.list, 0, count);
    this.list.splice(0, count);
    return last;
  }

  clear(): void {
    this.list = [];
    this.weight = 0;
  }
}
