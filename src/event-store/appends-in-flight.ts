/**
 * The appends this process has begun and not yet seen settle, numbered in the order they began.
 *
 * A reader of the store may see an append before this process is told it landed (PostgreSQL and
 * EventStoreDB show a commit to every connection at once; the writer thread's answer comes after).
 * A query that must reflect what such a read showed waits for the appends begun before it
 * (docs/design.md#read-models-and-consistency).
 */
export class AppendsInFlight {
  private begun = 0;
  /** In the order they began, so the first is the oldest still in flight. */
  private readonly pending = new Set<number>();
  private waiters: { upTo: number; resolve(settled: boolean): void }[] = [];

  begin(): number {
    this.pending.add(++this.begun);
    return this.begun;
  }

  settle(append: number): void {
    this.pending.delete(append);
    if (this.waiters.length > 0) this.release();
  }

  /**
   * Resolves true once every append begun before this call has settled (stored or failed), or
   * false after `timeoutMs` if one has not.
   */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.pending.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      const waiter = {
        upTo: this.begun,
        resolve: (settled: boolean) => {
          clearTimeout(timer);
          resolve(settled);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    const oldest = this.pending.values().next().value ?? Infinity;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.upTo < oldest) waiter.resolve(true);
      else this.waiters.push(waiter);
    }
  }
}
