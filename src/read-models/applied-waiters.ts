import { StoreUnavailableError } from '../event-store/event-store';

/** Queries waiting for the projector to apply a position: read-your-writes (docs/design.md#read-models-and-consistency). */
export class AppliedWaiters {
  private waiters: { position: number; resolve(): void; reject(error: Error): void }[] = [];

  get waiting(): boolean {
    return this.waiters.length > 0;
  }

  /**
   * Resolves once `release` passes `position`; rejects after `timeoutMs` with what `late` says
   * (the projector is stuck: a read-model file that cannot be written, a store that cannot be read).
   */
  async waitFor(position: number, timeoutMs: number, late: () => StoreUnavailableError): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waiter = { position, resolve: () => undefined as void, reject: (_: Error) => undefined as void };
    const reached = new Promise<void>((resolve, reject) => {
      waiter.resolve = resolve;
      waiter.reject = reject;
      this.waiters.push(waiter);
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(late()), timeoutMs);
    });
    try {
      await Promise.race([reached, timedOut]);
    } finally {
      clearTimeout(timer);
      // A waiter that timed out must not stay behind while the projector is stuck.
      this.waiters = this.waiters.filter((w) => w !== waiter);
    }
  }

  /** Resolves every waiter at or below `applied`. */
  release(applied: number): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.position <= applied) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  /** Rejects them all: the read models cannot be written now, so waiting would not help. */
  rejectAll(error: Error): void {
    for (const waiter of this.waiters) waiter.reject(error);
    this.waiters = [];
  }

  /** Resolves them all: the projector stops. */
  releaseAll(): void {
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
  }
}
