/** How many addresses are tracked at once; the least recently failing one makes room for a new one. */
export const TRACKED_ADDRESSES = 10_000;

const WINDOW_MS = 60_000;

interface Window {
  failures: number;
  endsAt: number;
}

/**
 * Failed authentications per client address in fixed one-minute windows, so that guessing keys
 * or replaying stolen-looking tokens from one address costs a minute per burst. Memory stays
 * bounded however many addresses fail: the map keeps at most `maxTracked` of them, in the order
 * they last failed (a Map iterates in insertion order; a failure re-inserts its address).
 */
export class FailedAuthBudget {
  private readonly windows = new Map<string, Window>();

  constructor(
    /** Failures an address may have in a minute; 0 turns the limit off. */
    readonly perMinute: number,
    private readonly maxTracked = TRACKED_ADDRESSES,
    private readonly now: () => number = Date.now,
  ) {}

  get tracked(): number {
    return this.windows.size;
  }

  /** Seconds until `address` may try again, or null while it is within its budget. */
  retryAfter(address: string): number | null {
    if (this.perMinute === 0) return null;
    const window = this.windows.get(address);
    if (!window) return null;
    const left = window.endsAt - this.now();
    if (left <= 0) {
      this.windows.delete(address);
      return null;
    }
    return window.failures >= this.perMinute ? Math.ceil(left / 1000) : null;
  }

  record(address: string): void {
    if (this.perMinute === 0) return;
    const now = this.now();
    const current = this.windows.get(address);
    const window = current && current.endsAt > now ? current : { failures: 0, endsAt: now + WINDOW_MS };
    window.failures++;
    this.windows.delete(address);
    if (this.windows.size >= this.maxTracked) this.windows.delete(this.windows.keys().next().value!);
    this.windows.set(address, window);
  }
}
