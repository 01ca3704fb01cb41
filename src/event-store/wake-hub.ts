import { settlesWithin } from '../common/settles-within';

/**
 * In-process wake-ups for subscriptions, shared by the SQLite and PostgreSQL adapters. A wake-up
 * carries no events: the woken reader reads the store from its own last position, so a missed or
 * doubled signal can never lose or repeat an event — at worst it delays one until the next
 * signal or poll.
 */
export const ALL_STREAMS = Symbol('all');
export type Channel = string | typeof ALL_STREAMS;

export interface Wait {
  promise: Promise<void>;
  cancel(): void;
}

export class WakeHub {
  private readonly waiters = new Map<Channel, Set<() => void>>();
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

  /** The streams someone waits on right now (the $all channel aside). */
  waitedStreams(): string[] {
    return [...this.waiters.keys()].filter((channel): channel is string => typeof channel === 'string');
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
