import { AccessDeniedError, UnavailableError, type ReadableSubscription } from '@eventstore/db-client';
import { Transform, type TransformCallback } from 'node:stream';
import { catchUp } from './catch-up';

/**
 * The resubscribe logic against stand-ins for the client's subscription objects (object-mode
 * streams): what the server sends is scripted per test; server behaviour itself is covered by
 * the contract suite in test/event-store/eventstoredb.e2e-spec.ts.
 */
class ScriptedSubscription extends Transform {
  unsubscribed = false;
  constructor(
    readonly from: number | undefined,
    private readonly onCheckpoint: (at: number) => void,
  ) {
    super({ objectMode: true });
  }
  /** Like the client's Subscription: a checkpoint is reported from _transform, after the items written before it were pushed. */
  checkpoint(at: number): void {
    this.write({ checkpoint: at });
  }
  override _transform(chunk: number | { checkpoint: number }, _: BufferEncoding, next: TransformCallback): void {
    if (typeof chunk === 'number') return next(null, chunk);
    this.onCheckpoint(chunk.checkpoint);
    next();
  }
  async unsubscribe(): Promise<void> {
    this.unsubscribed = true;
  }
}

function harness(script: (subscription: ScriptedSubscription, attempt: number) => void) {
  const opened: ScriptedSubscription[] = [];
  const source = {
    open: (cursor: number | undefined, onCheckpoint: (at: number) => void) => {
      const subscription = new ScriptedSubscription(cursor, onCheckpoint);
      opened.push(subscription);
      setImmediate(() => script(subscription, opened.length - 1));
      return subscription as unknown as ReadableSubscription<number>;
    },
    cursorOf: (item: number) => item,
    isAfter: (a: number, b: number) => a > b,
  };
  return { source, opened };
}

async function collect<T>(iterable: AsyncIterable<T>, count: number): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of iterable) {
    seen.push(item);
    if (seen.length === count) break;
  }
  return seen;
}

describe('catchUp', () => {
  it('resubscribes after a transient error from the last delivered cursor, without duplicates', async () => {
    const { source, opened } = harness((subscription, attempt) => {
      if (attempt === 0) {
        [1, 2, 3].forEach((n) => subscription.write(n));
        setImmediate(() => subscription.emit('error', new UnavailableError()));
      } else {
        // A server that replays the boundary item must not produce a duplicate.
        [3, 4, 5].forEach((n) => subscription.write(n));
      }
    });
    const seen = await collect(
      catchUp(source, 0, (n) => n, new AbortController().signal),
      5,
    );
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(opened.map((s) => s.from)).toEqual([0, 3]);
    expect(opened.every((s) => s.unsubscribed)).toBe(true);
  });

  it('advances the resume cursor past items it does not hand out', async () => {
    const { source, opened } = harness((subscription, attempt) => {
      if (attempt === 0) {
        [1, 2].forEach((n) => subscription.write(n));
        subscription.end();
      } else {
        subscription.write(3);
      }
    });
    const odd = (n: number) => (n % 2 === 1 ? n : undefined);
    expect(await collect(catchUp(source, undefined, odd, new AbortController().signal), 2)).toEqual([1, 3]);
    expect(opened.map((s) => s.from)).toEqual([undefined, 2]);
  });

  it('throws an error that is not about the connection', async () => {
    const { source } = harness((subscription) => subscription.emit('error', new AccessDeniedError()));
    await expect(
      collect(
        catchUp(source, undefined, (n) => n, new AbortController().signal),
        1,
      ),
    ).rejects.toBeInstanceOf(AccessDeniedError);
  });

  it('ends an idle iteration when the signal aborts, and unsubscribes', async () => {
    const { source, opened } = harness((subscription) => subscription.write(1));
    const controller = new AbortController();
    const seen: number[] = [];
    const loop = (async () => {
      for await (const n of catchUp(source, undefined, (x) => x, controller.signal)) seen.push(n);
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await loop;
    expect(seen).toEqual([1]);
    expect(opened).toHaveLength(1);
    expect(opened[0].unsubscribed).toBe(true);
  });

  it('pauses the native subscription while the consumer lags, and resumes it as it drains', async () => {
    const { source, opened } = harness((subscription) => {
      for (let n = 1; n <= 1000; n++) subscription.write(n);
    });
    const iterator = catchUp(source, undefined, (n) => n, new AbortController().signal);
    expect((await iterator.next()).value).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(opened[0].isPaused()).toBe(true);
    const rest = await collect({ [Symbol.asyncIterator]: () => iterator }, 999);
    expect(rest[998]).toBe(1000);
  });

  describe('with server checkpoints', () => {
    const asEvent = (n: number) => `e${n}`;
    const asCheckpoint = (n: number) => `c${n}`;

    it('hands each checkpoint out after every item the server sent before it, even while paused', async () => {
      const { source, opened } = harness((subscription) => {
        // More than the high-water mark, all at once: many items still sit in the subscription's
        // readable buffer (and it gets paused) when the checkpoint is reported.
        for (let n = 2; n <= 600; n += 2) subscription.write(n);
        subscription.checkpoint(601);
        subscription.write(602);
        subscription.checkpoint(603);
      });
      const iterator = catchUp(source, undefined, asEvent, new AbortController().signal, asCheckpoint);
      const expected = [...Array.from({ length: 300 }, (_, i) => asEvent(2 * (i + 1))), 'c601', 'e602', 'c603'];
      expect(await collect({ [Symbol.asyncIterator]: () => iterator }, expected.length)).toEqual(expected);
      expect(opened).toHaveLength(1);
      // A checkpoint that overtook its items would make the later ones look replayed: they would be
      // dropped and this would wait for them, so fail fast rather than at jest's default timeout.
    }, 5_000);

    it('resubscribes from the last checkpoint when it is newer than the last item', async () => {
      const { source, opened } = harness((subscription, attempt) => {
        if (attempt === 0) {
          subscription.write(1);
          subscription.checkpoint(5);
          setImmediate(() => subscription.emit('error', new UnavailableError()));
        } else {
          [3, 6].forEach((n) => subscription.write(n));
        }
      });
      const iterator = catchUp(source, undefined, asEvent, new AbortController().signal, asCheckpoint);
      expect(await collect({ [Symbol.asyncIterator]: () => iterator }, 3)).toEqual(['e1', 'c5', 'e6']);
      expect(opened.map((s) => s.from)).toEqual([undefined, 5]);
    });

    it('drops a checkpoint that does not move past the last item', async () => {
      const { source } = harness((subscription) => {
        subscription.write(4);
        subscription.checkpoint(4);
        subscription.checkpoint(3);
        subscription.write(5);
        subscription.checkpoint(7);
      });
      const iterator = catchUp(source, undefined, asEvent, new AbortController().signal, asCheckpoint);
      expect(await collect({ [Symbol.asyncIterator]: () => iterator }, 3)).toEqual(['e4', 'e5', 'c7']);
    });
  });
});
