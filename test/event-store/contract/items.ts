import { AllSubscriptionItem, StoredEvent } from '../../../src/event-store/event-store';
import { WAIT_MS, withTimeout } from './helpers';

/** A filtered $all subscription as the test drives it: pull items one at a time, abort at the end. */
export interface ItemReader {
  items: AllSubscriptionItem[];
  events(): StoredEvent[];
  checkpoints(): number[];
  /**
   * Pulls items until `done(items)` holds. When nothing arrives for `idleMs`, `onIdle` runs (e.g.
   * to append more events a server needs before it sends a checkpoint). Fails after `timeoutMs`.
   */
  until(done: (items: AllSubscriptionItem[]) => boolean, options?: { idleMs?: number; onIdle?: () => Promise<unknown>; timeoutMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

export function readItems(subscribe: (signal: AbortSignal) => AsyncIterable<AllSubscriptionItem>): ItemReader {
  const controller = new AbortController();
  const iterator = subscribe(controller.signal)[Symbol.asyncIterator]();
  const items: AllSubscriptionItem[] = [];
  // One outstanding next() at a time, kept across idle rounds so no item is lost between them.
  let pending: Promise<IteratorResult<AllSubscriptionItem>> | undefined;
  return {
    items,
    events: () => items.flatMap((item) => (item.kind === 'event' ? [item.event] : [])),
    checkpoints: () => items.flatMap((item) => (item.kind === 'checkpoint' ? [item.position] : [])),
    async until(done, { idleMs, onIdle, timeoutMs = WAIT_MS } = {}) {
      const deadline = Date.now() + timeoutMs;
      while (!done(items)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms with ${describe(items)}`);
        pending ??= iterator.next();
        pending.catch(() => undefined);
        const idle = idleMs !== undefined && onIdle !== undefined;
        const next = await withTimeout(pending, idle ? Math.min(idleMs, left) : left, 'the next item').then(
          (result) => ({ result }),
          (error: Error) => {
            if (idle && /^timed out/.test(error.message)) return undefined;
            throw new Error(`${error.message} with ${describe(items)}`);
          },
        );
        if (next === undefined) {
          await onIdle!();
          continue;
        }
        pending = undefined;
        if (next.result.done) throw new Error(`subscription ended with ${describe(items)}`);
        items.push(next.result.value);
      }
    },
    async stop() {
      controller.abort();
      await iterator.return?.();
    },
  };
}

function describe(items: AllSubscriptionItem[]): string {
  const text = items.map((item) => (item.kind === 'event' ? `${item.event.streamId}@${item.event.revision}` : `checkpoint ${item.position}`));
  return `${items.length} items: ${text.join(', ').slice(0, 2000)}`;
}

/**
 * What every filtered subscription must show, whatever else the test checks: its events are
 * exactly `expected` (the matching events after the start, in log order) up to the last one
 * received, with no gap and no duplicate; every item's position is above `after` and above the
 * item before it (so a checkpoint is never below an event already delivered); and no checkpoint
 * claims a matching event that has not been delivered before it.
 */
export function expectConsistentItems(items: AllSubscriptionItem[], expected: StoredEvent[], after: number): void {
  const delivered = items.flatMap((item) => (item.kind === 'event' ? [item.event] : []));
  expect(delivered).toEqual(expected.slice(0, delivered.length));
  let last = after;
  let seen = 0;
  for (const [index, item] of items.entries()) {
    const position = item.kind === 'event' ? item.event.position : item.position;
    if (!(position > last)) throw new Error(`item ${index} (${item.kind}) at position ${position} is not above ${last}`);
    last = position;
    if (item.kind === 'event') {
      seen += 1;
      continue;
    }
    const covered = expected.filter((event) => event.position <= item.position).length;
    if (covered > seen) {
      throw new Error(`checkpoint ${item.position} (item ${index}) covers ${covered} matching events, but only ${seen} were delivered before it`);
    }
  }
}
