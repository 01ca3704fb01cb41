/**
 * In-process wake-ups for subscriptions: after a commit the adapter signals the streams it
 * touched and the global log. A wake-up carries no events; the woken reader reads the store
 * from its own last position, so a missed or doubled signal can never lose or repeat an event.
 */
export const ALL_STREAMS = Symbol('all');
type Channel = string | typeof ALL_STREAMS;

export interface Wait {
  promise: Promise<void>;
  cancel(): void;
}

export class WakeSignals {
  private readonly waiters = new Map<Channel, Set<() => void>>();

  /** Register before reading, so a commit between the read and the wait still wakes the reader. */
  wait(channel: Channel, signal?: AbortSignal): Wait {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    const set = this.waiters.get(channel) ?? new Set();
    this.waiters.set(channel, set);
    const cancel = () => {
      set.delete(wake);
      if (set.size === 0 && this.waiters.get(channel) === set) this.waiters.delete(channel);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      cancel();
      wake();
    };
    set.add(wake);
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(cancel);
    return { promise, cancel };
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
}
