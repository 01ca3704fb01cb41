import type { Pool } from 'pg';
import type { StoredEvent } from '../event-store';
import { isUnavailable } from './postgres-errors';
import { READ_CHUNK, readAllChunk } from './reads';
import { ALL_STREAMS, WakeHub, sleep, wakeOrTimeout } from '../wake-hub';
import { BoundedRun, MAX_RECENT_WEIGHT } from '../event-weight';

/** The channel on which the tail wakes the subscriptions it serves. */
export const TAIL = Symbol('all-tail');
/** Events kept (and at most MAX_RECENT_WEIGHT of them); a subscription further behind reads for itself. */
const CAPACITY = 8_192;
/**
 * Events kept once every subscription has read them, for one about to join. Keeping every event
 * up to CAPACITY made each of them survive two scavenges (V8's young generation) and be promoted:
 * on three instances, 8–60 ms pauses (docs/benchmarks.md).
 */
const READ_KEPT = 256;
/** The tail re-reads this often with nothing to wake it, in case a wake-up was lost. */
const IDLE_POLL_MS = 5_000;
/** Re-reads while an older transaction holds events back, from the first to the last interval. */
const HELD_POLL_MS = [1, 64] as const;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/** A subscription served by the tail. */
export interface TailMember {
  /**
   * Every event after `cursor` up to the head, and the head, when the run covers `cursor`; null
   * when it starts after it (the subscription reads for itself until it catches up). Asking says
   * that everything up to `cursor` has been read.
   */
  after(cursor: number): { events: StoredEvent[]; head: number } | null;
  leave(): void;
}

/**
 * One reader of $all for every caught-up subscription of this process (the projector, the
 * owner's follower, queued starts, webhooks, audit feeds): it reads each wake-up's new events
 * below the frontier once, unfiltered, and the subscriptions filter them in memory. Each of them
 * used to run that read, with its own filter, on every wake-up (five or more per commit, and the
 * statement PostgreSQL spent most of its time on in bench:instances).
 *
 * It holds the newest events as one run of positions `(from, head]` that misses none: each read
 * starts at `head` and ends at the frontier's stable head (or at its last event when the read was
 * full), which is exactly what one subscription's own read guaranteed. It runs while some
 * subscription has joined, and forgets everything when the last one leaves. What every joined
 * subscription has read is let go but for the newest READ_KEPT events, so the events of $all die
 * young unless a subscription lags.
 */
export class PgAllTail {
  private readonly kept: BoundedRun;
  private from = 0;
  private head = 0;
  private users = 0;
  /** What each joined subscription has read through (its last cursor asked about). */
  private readonly readThrough = new Map<TailMember, number>();
  private loop: AbortController | undefined;
  /** Bumped when the tail gives up, so that the leaves of those it served count no more. */
  private generation = 0;

  constructor(
    private readonly pool: Pool,
    private readonly xidBase: bigint,
    private readonly hub: WakeHub,
    budget = MAX_RECENT_WEIGHT,
  ) {
    this.kept = new BoundedRun(CAPACITY, budget);
  }

  /**
   * A subscription has read, by itself, everything up to `position` (a short read's checkpoint)
   * and waits on TAIL from now on.
   */
  join(position: number): TailMember {
    this.users++;
    if (!this.loop) {
      this.kept.clear();
      this.from = this.head = position;
      this.loop = new AbortController();
      void this.run(this.loop.signal);
    }
    const generation = this.generation;
    let left = false;
    const member: TailMember = {
      after: (cursor) => {
        if (generation === this.generation && !left) this.readThrough.set(member, cursor);
        return this.after(cursor);
      },
      leave: () => {
        if (left || generation !== this.generation) return;
        left = true;
        this.readThrough.delete(member);
        if (--this.users === 0) this.stop();
      },
    };
    this.readThrough.set(member, position);
    return member;
  }

  private after(cursor: number): { events: StoredEvent[]; head: number } | null {
    if (!this.loop || cursor < this.from) return null;
    if (cursor >= this.head) return { events: [], head: this.head };
    // Positions have holes (position.ts): find the first one after the cursor.
    let low = 0;
    let high = this.kept.events.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.kept.events[mid].position <= cursor) low = mid + 1;
      else high = mid;
    }
    return { events: this.kept.events.slice(low), head: this.head };
  }

  private async run(stop: AbortSignal): Promise<void> {
    let heldPollMs: number = HELD_POLL_MS[0];
    let retryMs = FIRST_RETRY_MS;
    while (!stop.aborted) {
      const wait = this.hub.wait(ALL_STREAMS, stop);
      try {
        let chunk;
        try {
          chunk = await readAllChunk(this.pool, this.xidBase, this.head, READ_CHUNK);
          retryMs = FIRST_RETRY_MS;
        } catch (error) {
          if (stop.aborted) return;
          // Not the database being away: the subscriptions read for themselves, and meet it there.
          if (!isUnavailable(error)) return this.fail();
          await sleep(retryMs, stop);
          retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
          continue;
        }
        if (stop.aborted) return;
        const full = chunk.events.length === READ_CHUNK;
        const head = full ? chunk.events[chunk.events.length - 1].position : Math.max(chunk.stableHead, this.head);
        if (head > this.head) {
          this.record(chunk.events, head);
          this.hub.wake([TAIL]);
        }
        if (full) continue;
        // Events held back by an older transaction become readable when it ends, which may bring
        // no wake-up (another database's transaction, a rollback): poll until then, backing off.
        const pollMs = chunk.held ? heldPollMs : IDLE_POLL_MS;
        heldPollMs = chunk.held ? Math.min(heldPollMs * 2, HELD_POLL_MS[1]) : HELD_POLL_MS[0];
        await wakeOrTimeout(wait.promise, pollMs);
      } finally {
        wait.cancel();
      }
    }
  }

  private record(events: StoredEvent[], head: number): void {
    // What is cut from the front moves `from` past it: a cursor before it reads for itself.
    const cut = this.kept.push(events);
    if (cut) this.from = cut.position;
    this.head = head;
    let read = Infinity;
    for (const through of this.readThrough.values()) read = Math.min(read, through);
    const dropped = this.kept.dropThrough(read, READ_KEPT);
    if (dropped) this.from = dropped.position;
  }

  /** Serves nobody from here on: every subscription falls back to its own reads (and joins again). */
  private fail(): void {
    this.stop();
    this.users = 0;
    this.hub.wake([TAIL]);
  }

  private stop(): void {
    this.loop?.abort();
    this.loop = undefined;
    this.kept.clear();
    this.readThrough.clear();
    this.generation++;
  }
}
