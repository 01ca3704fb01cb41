/**
 * The `delay` steps of one run behind one abort listener for the whole run: a script of thousands
 * of delays would otherwise add and remove a listener on the run's signal for each of them.
 * A cancel interrupts the delay under way, which rejects as `timers/promises` would.
 */
export class RunDelays {
  private interrupt: (() => void) | null = null;
  private readonly onAbort = (): void => this.interrupt?.();

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  wait(ms: number): Promise<void> {
    if (this.signal.aborted) return Promise.reject(this.aborted());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.interrupt = null;
        resolve();
      }, ms);
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = null;
        reject(this.aborted());
      };
    });
  }

  close(): void {
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private aborted(): Error {
    return Object.assign(new DOMException('The operation was aborted', 'AbortError'), { cause: this.signal.reason });
  }
}
