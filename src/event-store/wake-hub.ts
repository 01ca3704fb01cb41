import { settlesWithin } from '../common/settles-within';

/**
 * In-process wake-ups for subscriptions, shared by the SQLite and PostgreSQL adapters. A wake-up
 * carries no events: the woken reader reads the store from its own last position, so a missed or
 * doubled signal can never lose or repeat an event — at worst it delays one until the next
 * signal or poll.
 */
export const ALL_STREAMS = Symbol('all');
/** A stream's id, ALL_STREAMS, or another symbol of an adapter's own. */
export type Channel = string | symbol;

export interface Wait {
  promise: Promise<void>;
  cancel(): void;
}

export class WakeHub {
  private readonly waiters = new Map<Channel, Set<() => void>>();
  /** How many subscriptions follow each stream, waiting or not (see `follow`). */
  private readonly followers = new Map<string, number>();
  /**
   * The waits to end when a signal aborts, behind one listener per signal: a follower waits once
   * per commit, and an abort listener added and removed each time costs more than the wait.
   */
  private readonly onAbort = new WeakMap<AbortSignal, Set<() => void>>();

  /** Register before reading, so a commit between the read and the wait still wakes the reader. */
  wait(channel: Channel, signal?: AbortSignal): Wait {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    if (signal?.aborted) {
      resolve();
      return { promise, cancel: () => undefined };
    }
    const set = this.waiters.get(channel) ?? new Set();
    this.waiters.set(channel, set);
    const aborts = signal && this.abortsOf(signal);
    const cancel = (): void => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(channel) === set) this.waiters.delete(channel);
      aborts?.delete(wake);
    };
    const wake = (): void => {
      cancel();
      resolve();
    };
    set.add(wake);
    aborts?.add(wake);
    return { promise, cancel };
  }

  private abortsOf(signal: AbortSignal): Set<() => void> {
    const known = this.onAbort.get(signal);
    if (known) return known;
    const aborts = new Set<() => void>();
    signal.addEventListener('abort', () => [...aborts].forEach((wake) => wake()), { once: true });
    this.onAbort.set(signal, aborts);
    return aborts;
  }

  wake(channels: Iterable<Channel>): void {
    for (const channel of channels) {
      const set = this.waiters.get(channel);
      if (!set) continue;
      this.waiters.delete(channel);
      for (const wake of set) wake();
    }
  }

  wakeEveryone(): void {
    this.wake([...this.waiters.keys()]);
  }

  /**
   * A stream subscription announces itself for its whole life, not only while it waits: one that
   * was just woken and is reading or yielding is not waiting, yet the next commit is still its
   * business. Answers the release. Keying the per-commit work on waiters instead fed itself on
   * PostgreSQL: a wake-up of everyone left nobody waiting, the next scan saw no streams and woke
   * everyone again, and each follower read its stream for itself.
   */
  follow(streamId: string): () => void {
    this.followers.set(streamId, (this.followers.get(streamId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.followers.get(streamId)! - 1;
      if (left === 0) this.followers.delete(streamId);
      else this.followers.set(streamId, left);
    };
  }

  /** The streams some subscription follows right now. */
  followedStreams(): string[] {
    return [...this.followers.keys()];
  }

  isFollowed(streamId: string): boolean {
    return this.followers.has(streamId);
  }

  hasWaiters(channel: Channel): boolean {
    return this.waiters.has(channel);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts; `unref`'d so an idle poll never holds the process. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when `wake` does or after `ms`, whichever is first, leaving no timer behind. */
export async function wakeOrTimeout(wake: Promise<void>, ms: number): Promise<void> {
  await settlesWithin(wake, ms);
}
