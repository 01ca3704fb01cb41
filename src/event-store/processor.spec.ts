import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreUnavailableError } from './event-store';
import { Processor, ProcessorBatch } from './processor';
import { SqliteEventStore } from './sqlite/sqlite-event-store';

const meta = { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null };
const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe('Processor', () => {
  let store: SqliteEventStore;
  const stop = new AbortController();
  beforeAll(() => Logger.overrideLogger(false));
  beforeEach(() => {
    store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-processor-')), 'events.db'));
  });
  afterEach(async () => {
    await store.close();
  });
  const append = (stream: string, type: string) => store.append(stream, [{ type, data: {}, metadata: meta }], 'any');

  it('from the head with its checkpoint in memory: only what follows, filtered, each batch with the position it covers', async () => {
    await append('execution-old', 'a');
    const batches: ProcessorBatch[] = [];
    let checkpoint = await store.headPosition();
    const processor = new Processor(store, {
      name: 'spec',
      writes: 'the spec rows',
      filter: { streamPrefixes: ['execution-'] },
      from: checkpoint,
      handle: (batch) => {
        batches.push(batch);
        checkpoint = batch.position;
      },
    });
    const signal = new AbortController();
    const running = processor.run(signal.signal);
    await append('execution-x', 'b');
    await append('other-y', 'c');
    const last = await append('execution-x', 'd');
    await until(() => checkpoint >= last.position);
    signal.abort();
    await running;
    expect(batches.flatMap((b) => b.events.map((e) => e.type))).toEqual(['b', 'd']);
    expect(processor.position).toBe(last.position);
    expect(processor.stopped).toBe(true);
  });

  it('a refused batch is retried with what came since; an error of the handler stops it', async () => {
    let refusals = 2;
    const seen: string[] = [];
    const processor = new Processor(store, {
      name: 'spec',
      writes: 'the spec rows',
      filter: { streamPrefixes: ['execution-'] },
      from: 0,
      handle: ({ events }) => {
        if (refusals-- > 0) throw new StoreUnavailableError('disk full');
        for (const event of events) if (event.type === 'boom') throw new Error('a bug');
        seen.push(...events.map((e) => e.type));
      },
    });
    const running = processor.run(stop.signal);
    await append('execution-x', 'a');
    await until(() => seen.length > 0);
    expect(seen).toEqual(['a']);
    expect(processor.problem).toBeNull();
    await append('execution-x', 'boom');
    await running;
    expect(processor.stopped).toBe(true);
    expect(processor.problem).toBeInstanceOf(StoreUnavailableError);
  });

  it('a full buffer that compacts to half or less goes on reading while the handler holds a batch', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handled: string[][] = [];
    let compactedUpTo = -1;
    const processor = new Processor(store, {
      name: 'spec',
      writes: 'the spec rows',
      filter: { streamPrefixes: ['execution-'] },
      from: 0,
      maxBatch: 10,
      // Keeps only the last item, as the projector's compaction does with one stream's deltas.
      compact: (items) => {
        const last = items[items.length - 1];
        if (last.kind === 'event') compactedUpTo = Math.max(compactedUpTo, last.event.revision);
        return [last];
      },
      handle: async ({ events }) => {
        handled.push(events.map((e) => String(e.revision)));
        await held;
      },
    });
    const signal = new AbortController();
    const running = processor.run(signal.signal);
    await append('execution-x', 'first');
    await until(() => handled.length === 1);
    let last = 0;
    for (let i = 0; i < 59; i++) last = (await append('execution-x', 'delta')).position;
    // Without compaction the subscription would stop at 10 buffered items until the handler returns.
    await until(() => compactedUpTo >= 50);
    expect(compactedUpTo).toBeGreaterThanOrEqual(50);
    expect(handled).toHaveLength(1);
    release();
    await until(() => processor.position >= last);
    signal.abort();
    await running;
    expect(processor.position).toBe(last);
    expect(handled.at(-1)?.at(-1)).toBe('59');
    expect(handled.flat().length).toBeLessThan(30);
  });
});
