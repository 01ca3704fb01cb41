/**
 * The appends this process has begun and not yet seen settle, counted by the epoch they began in:
 * each query that has to wait closes the current epoch and waits for it and every earlier one.
 * Between two such queries an append costs an increment and a decrement, nothing allocated.
 *
 * A reader of the store may see an append before this process is told it landed (PostgreSQL and
 * EventStoreDB show a commit to every connection at once; the writer thread's answer comes after).
 * A query that must reflect what such a read showed waits for the appends begun before it
 * (docs/design.md#read-models-and-consistency).
 */
export class AppendsInFlight {
  private epoch = 0;
  /** In flight, begun in the current epoch. */
  private current = 0;
  /** Earlier epochs with appends still in flight, oldest first (epochs only grow). */
  private readonly earlier = new Map<number, number>();
  private waiters: { upTo: number; resolve(settled: boolean): void }[] = [];

  /** Returns the append's epoch, for `settle`. */
  begin(): number {
    this.current += 1;
    return this.epoch;
  }

  settle(epoch: number): void {
    if (epoch === this.epoch) {
      this.current -= 1;
      return;
    }
    const left = this.earlier.get(epoch)! - 1;
    if (left > 0) return void this.earlier.set(epoch, left);
    this.earlier.delete(epoch);
    this.release();
  }

  /**
   * Resolves true once every append begun before this call has settled (stored or failed), or
   * false after `timeoutMs` if one has not.
   */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.current > 0) {
      this.earlier.set(this.epoch, this.current);
      this.current = 0;
      this.epoch += 1;
    }
    if (this.earlier.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      // Unreferenced, as settlesWithin's (common/settles-within.ts), which cannot serve here: a
      // waiter that times out must leave the list, or a hung append would gather one per query.
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs).unref();
      const waiter = {
        upTo: this.epoch - 1,
        resolve: (settled: boolean) => {
          clearTimeout(timer);
          resolve(settled);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const oldest: number = this.earlier.keys().next().value ?? Infinity;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.upTo < oldest) waiter.resolve(true);
      else this.waiters.push(waiter);
    }
  }
}
