/** Why the guard stopped an upstream request; its message is safe for run.failed. */
export class UpstreamTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamTimeoutError';
  }
}

/**
 * The two timeouts of one upstream request: the whole request, and the idle time between chunks
 * (counted from the request's start, so a server that never answers is idle too). Its signal
 * also follows the execution's, so a cancel aborts the request. The idle clock is paused while
 * the run itself waits (e.g. for the store to take a delta): that wait is ours, not upstream's.
 */
export class RequestGuard {
  private readonly controller = new AbortController();
  private readonly requestTimer: NodeJS.Timeout;
  private idleTimer: NodeJS.Timeout | null = null;
  readonly signal: AbortSignal;

  constructor(
    executionSignal: AbortSignal,
    private readonly timeouts: { requestMs: number; idleMs: number },
  ) {
    this.signal = AbortSignal.any([executionSignal, this.controller.signal]);
    this.requestTimer = setTimeout(() => this.stop(`upstream request took over ${timeouts.requestMs} ms`), timeouts.requestMs);
    this.touch();
  }

  /** A chunk arrived, or the run's own wait is over: the idle clock starts again. */
  touch(): void {
    this.pause();
    if (this.signal.aborted) return;
    this.idleTimer = setTimeout(() => this.stop(`upstream sent nothing for ${this.timeouts.idleMs} ms`), this.timeouts.idleMs);
  }

  pause(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** The timeout that stopped the request, if one did. */
  get timedOut(): UpstreamTimeoutError | null {
    const reason: unknown = this.controller.signal.reason;
    return this.controller.signal.aborted && reason instanceof UpstreamTimeoutError ? reason : null;
  }

  /**
   * The SDKs end their stream iterators quietly when the request is aborted: after the loop,
   * this turns an abort into the error it stands for.
   */
  throwIfStopped(): void {
    if (this.signal.aborted) throw this.timedOut ?? this.signal.reason ?? new Error('upstream request aborted');
  }

  dispose(): void {
    clearTimeout(this.requestTimer);
    this.pause();
  }

  private stop(message: string): void {
    this.controller.abort(new UpstreamTimeoutError(message));
  }
}
