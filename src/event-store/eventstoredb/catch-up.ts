import {
  CancelledError,
  DeadlineExceededError,
  NotLeaderError,
  UnavailableError,
  UnknownError,
  type ReadableSubscription,
} from '@eventstore/db-client';

/** Above this many undelivered events the native subscription is paused, so gRPC flow control holds the server back. */
const HIGH_WATER = 256;
const LOW_WATER = 64;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;
/** gRPC status INTERNAL; @grpc/grpc-js is the client's dependency, not ours, so no import for one constant. */
const GRPC_INTERNAL = 13;

/**
 * A connection-level failure: the server went away, restarted, lost leadership or cut the call.
 * Anything else (access denied, a deleted stream, a bug) is the caller's to see.
 */
export function isTransient(error: unknown): boolean {
  if (
    error instanceof UnavailableError ||
    error instanceof CancelledError ||
    error instanceof NotLeaderError ||
    error instanceof DeadlineExceededError
  ) {
    return true;
  }
  // A connection reset mid-stream surfaces as INTERNAL ("Received RST_STREAM"), which the
  // client maps to UnknownError.
  return error instanceof UnknownError && error.code === GRPC_INTERNAL;
}

export interface CatchUpSource<R, C> {
  /** Opens the native catch-up subscription that starts strictly after `cursor` (undefined = from the start). */
  open(cursor: C | undefined): ReadableSubscription<R>;
  /** The cursor of a received item, used to resume after a drop and to drop anything already delivered. */
  cursorOf(item: R): C;
  isAfter(cursor: C, than: C): boolean;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A catch-up subscription that survives connection drops: it resubscribes (with capped
 * exponential back-off) from the cursor of the last item it handed out, so the consumer sees
 * no gap and no duplicate. It ends when `signal` aborts or the consumer stops iterating; it
 * throws only errors that are not transient.
 *
 * `select` maps a native item to what the consumer gets, or `undefined` to skip it while still
 * advancing the resume cursor past it.
 */
export async function* catchUp<R, C, T>(
  source: CatchUpSource<R, C>,
  start: C | undefined,
  select: (item: R) => T | undefined,
  signal: AbortSignal,
): AsyncGenerator<T> {
  let cursor = start;
  let retryMs = FIRST_RETRY_MS;
  while (!signal.aborted) {
    const subscription = source.open(cursor);
    const queue: R[] = [];
    let failure: Error | undefined;
    let ended = false;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const resolve = wake;
      wake = undefined;
      resolve?.();
    };
    subscription.on('data', (item: R) => {
      queue.push(item);
      if (queue.length >= HIGH_WATER) subscription.pause();
      notify();
    });
    subscription.on('error', (error: Error) => {
      failure ??= error;
      notify();
    });
    subscription.on('confirmation', () => {
      retryMs = FIRST_RETRY_MS;
    });
    subscription.on('end', () => {
      ended = true;
      notify();
    });
    signal.addEventListener('abort', notify);
    try {
      for (;;) {
        if (signal.aborted) return;
        const item = queue.shift();
        if (item !== undefined) {
          if (queue.length <= LOW_WATER && subscription.isPaused()) subscription.resume();
          const itemCursor = source.cursorOf(item);
          // The server starts after the cursor, but a resubscription must never replay what
          // the consumer already has, whatever the server version does at the boundary.
          if (cursor !== undefined && !source.isAfter(itemCursor, cursor)) continue;
          cursor = itemCursor;
          const selected = select(item);
          if (selected !== undefined) yield selected;
          continue;
        }
        if (failure !== undefined || ended) break;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      signal.removeEventListener('abort', notify);
      subscription.removeAllListeners('data');
      // Keep an error listener: a late error on a subscription being torn down must not crash the process.
      subscription.removeAllListeners('error');
      subscription.on('error', () => undefined);
      await subscription.unsubscribe().catch(() => undefined);
      subscription.destroy();
    }
    if (failure !== undefined && !isTransient(failure)) throw failure;
    // A catch-up subscription has no natural end: a clean end is a drop like any other.
    await sleep(retryMs, signal);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}
