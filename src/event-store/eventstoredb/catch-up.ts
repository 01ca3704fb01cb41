import type { ReadableSubscription } from '@eventstore/db-client';
import { isUnavailable } from './eventstoredb-errors';

/** Above this many undelivered events the native subscription is paused, so gRPC flow control holds the server back. */
const HIGH_WATER = 256;
const LOW_WATER = 64;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export interface CatchUpSource<R, C> {
  /**
   * Opens the native catch-up subscription that starts strictly after `cursor` (undefined = from
   * the start). A source with server checkpoints reports each through `onCheckpoint`, called from
   * the client's `checkpointReached` hook.
   */
  open(cursor: C | undefined, onCheckpoint: (cursor: C) => void): ReadableSubscription<R>;
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
 * advancing the resume cursor past it; `selectCheckpoint` does the same for server checkpoints,
 * which are handed out in their place in the stream (see `onCheckpoint` below) and, like items,
 * move the resume cursor.
 */
export async function* catchUp<R, C, T>(
  source: CatchUpSource<R, C>,
  start: C | undefined,
  select: (item: R) => T | undefined,
  signal: AbortSignal,
  selectCheckpoint: (cursor: C) => T | undefined = () => undefined,
): AsyncGenerator<T> {
  let cursor = start;
  let retryMs = FIRST_RETRY_MS;
  while (!signal.aborted) {
    type Entry = { item: R } | { checkpoint: C };
    const queue: Entry[] = [];
    // Checkpoints that arrived while items before them still sat in the subscription's buffer.
    const held: { after: number; checkpoint: C }[] = [];
    let received = 0;
    // The client awaits checkpointReached inside its Transform, after pushing every event the
    // server sent before the checkpoint — but those may still wait in the Readable's buffer (it is
    // paused, or 'data' is emitted on a later tick). Queueing the checkpoint straight away would
    // let it overtake them, and a consumer would store a position past events it has not applied;
    // so it is queued only once every item buffered before it has come out through 'data'.
    const onCheckpoint = (checkpoint: C): void => {
      const after = received + (subscription?.readableLength ?? 0);
      if (after > received) {
        held.push({ after, checkpoint });
        return;
      }
      queue.push({ checkpoint });
      notify();
    };
    // `let`, not `const`: onCheckpoint reads it, and a source may call that before open() returns.
    let subscription: ReadableSubscription<R> | undefined;
    subscription = source.open(cursor, onCheckpoint);
    let failure: Error | undefined;
    let ended = false;
    let wake: (() => void) | undefined;
    const notify = (): void => {
      const resolve = wake;
      wake = undefined;
      resolve?.();
    };
    subscription.on('data', (item: R) => {
      received += 1;
      queue.push({ item });
      while (held.length > 0 && held[0].after <= received) queue.push({ checkpoint: held.shift()!.checkpoint });
      if (queue.length >= HIGH_WATER) subscription!.pause();
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
        const entry = queue.shift();
        if (entry !== undefined) {
          if (queue.length <= LOW_WATER && subscription.isPaused()) subscription.resume();
          const entryCursor = 'item' in entry ? source.cursorOf(entry.item) : entry.checkpoint;
          // The server starts after the cursor, but a resubscription must never replay what
          // the consumer already has, whatever the server version does at the boundary; and a
          // checkpoint that does not move past the last item says nothing new.
          if (cursor !== undefined && !source.isAfter(entryCursor, cursor)) continue;
          cursor = entryCursor;
          const selected = 'item' in entry ? select(entry.item) : selectCheckpoint(entry.checkpoint);
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
    if (failure !== undefined && !isUnavailable(failure)) throw failure;
    // A catch-up subscription has no natural end: a clean end is a drop like any other.
    await sleep(retryMs, signal);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}
