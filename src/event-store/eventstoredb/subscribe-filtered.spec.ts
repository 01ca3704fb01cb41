import type { AllStreamResolvedEvent, Filter, Position, SubscribeToAllOptions } from '@eventstore/db-client';
import { Transform, type TransformCallback } from 'node:stream';
import type { AllSubscriptionItem } from '../event-store';
import { EventStoreDbEventStore } from './eventstoredb-event-store';

/**
 * subscribeToAllFiltered over a stand-in for the client: its subscription reports checkpoints from
 * _transform through the filter's checkpointReached, as @eventstore/db-client 6.2.1 does. What the
 * server itself sends is covered by the contract suite in test/event-store/eventstoredb.e2e-spec.ts.
 */
type Sent = { streamId: string; type: string; at: number } | { checkpoint: Position };

class FakeSubscription extends Transform {
  constructor(private readonly serverFilter: Filter) {
    super({ objectMode: true });
  }
  // Not `async`: Transform ignores the returned promise, so a rejected checkpointReached would be
  // an unhandled rejection. It goes to next() instead, which fails the stream.
  override _transform(sent: Sent, _: BufferEncoding, next: TransformCallback): void {
    if ('checkpoint' in sent) {
      Promise.resolve(this.serverFilter.checkpointReached?.(this as never, sent.checkpoint)).then(() => next(), next);
      return;
    }
    next(null, resolved(sent.streamId, sent.type, sent.at));
  }
  async unsubscribe(): Promise<void> {}
}

function resolved(streamId: string, type: string, at: number): AllStreamResolvedEvent {
  return {
    event: {
      streamId,
      id: `00000000-0000-4000-8000-${String(at).padStart(12, '0')}`,
      isJson: true,
      revision: 0n,
      type,
      created: new Date('2025-01-01T00:00:00.000Z'),
      data: { at },
      metadata: { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null, occurredAt: '2025-01-01T00:00:00.000Z' },
      position: { commit: BigInt(at), prepare: BigInt(at) },
    },
  } as AllStreamResolvedEvent;
}

function storeOver(script: Sent[]) {
  const opened: SubscribeToAllOptions[] = [];
  const client = {
    subscribeToAll(options: SubscribeToAllOptions) {
      opened.push(options);
      const subscription = new FakeSubscription(options.filter!);
      setImmediate(() => script.forEach((sent) => subscription.write(sent)));
      return subscription;
    },
    dispose: async () => undefined,
  };
  // The constructor is private: connect() would need a server.
  const store = new (EventStoreDbEventStore as unknown as new (client: unknown) => EventStoreDbEventStore)(client);
  return { store, opened };
}

async function take(iterable: AsyncIterable<AllSubscriptionItem>, count: number): Promise<string[]> {
  const seen: string[] = [];
  for await (const item of iterable) {
    seen.push(item.kind === 'event' ? `${item.event.streamId}:${item.event.type}@${item.event.position}` : `checkpoint@${item.position}`);
    if (seen.length === count) break;
  }
  return seen;
}

const at = (commit: number, prepare = commit): { checkpoint: Position } => ({ checkpoint: { commit: BigInt(commit), prepare: BigInt(prepare) } });

describe('EventStoreDbEventStore.subscribeToAllFiltered', () => {
  it('filters streams on the server and types here, exactly, with checkpoints in their place', async () => {
    const { store, opened } = storeOver([
      { streamId: 'execution-1', type: 'run.queued', at: 100 },
      { streamId: 'execution-1', type: 'run.queued.v2', at: 110 },
      { streamId: 'execution-1', type: '$metadata', at: 120 },
      at(150),
      { streamId: 'execution-2', type: 'run.queued', at: 200 },
      at(300),
    ]);
    const items = await take(store.subscribeToAllFiltered({ filter: { streamPrefixes: ['execution-'], types: ['run.queued'] }, after: 50 }), 4);
    expect(items).toEqual(['execution-1:run.queued@100', 'checkpoint@149', 'execution-2:run.queued@200', 'checkpoint@299']);
    expect(opened[0].filter).toMatchObject({ filterOn: 'streamName', prefixes: ['execution-'], checkpointInterval: 1 });
    expect(opened[0].fromPosition).toEqual({ commit: 50n, prepare: 50n });
    await store.close();
  });

  it('filters on event types on the server when no stream prefix is given', async () => {
    const { store, opened } = storeOver([{ streamId: 's', type: 'a', at: 10 }]);
    expect(await take(store.subscribeToAllFiltered({ filter: { types: ['a', 'b'] } }), 1)).toEqual(['s:a@10']);
    expect(opened[0].filter).toMatchObject({ filterOn: 'eventType', prefixes: ['a', 'b'] });
    expect(opened[0].fromPosition).toBe('start');
    await store.close();
  });

  it('hands out only checkpoints above the last item and above `after`', async () => {
    const { store } = storeOver([at(40), { streamId: 'x-1', type: 't', at: 100 }, at(100), at(101), at(90), at(500, 400), at(500, 600)]);
    const items = await take(store.subscribeToAllFiltered({ filter: { streamPrefixes: ['x-'] }, after: 50 }), 3);
    // (101, 101) may be where the next read starts, so only 100 is certain; it is not above the event.
    expect(items).toEqual(['x-1:t@100', 'checkpoint@499', 'checkpoint@500']);
    await store.close();
  });
});
