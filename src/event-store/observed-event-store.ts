import {
  AllSubscriptionItem,
  AppendResult,
  EventStore,
  ExpectedRevision,
  FilteredSubscribeOptions,
  NewEvent,
  ReadOptions,
  StoredEvent,
  StoreUnavailableError,
  SubscribeOptions,
} from './event-store';

/** Told the outcome of every append the application makes (readiness, read-your-writes, metrics). */
export interface AppendObserver {
  appended(streamId: string, count: number, result: AppendResult, durationMs: number): void;
  refused(error: StoreUnavailableError): void;
}

/** The configured adapter, with every append's outcome reported to the observers. */
export class ObservedEventStore implements EventStore {
  private readonly observers: AppendObserver[] = [];

  constructor(private readonly store: EventStore) {}

  /** Modules that care (readiness, projections, metrics) register as they start. */
  observe(observer: AppendObserver): void {
    this.observers.push(observer);
  }

  get kind(): EventStore['kind'] {
    return this.store.kind;
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const started = performance.now();
    try {
      const result = await this.store.append(streamId, events, expected);
      const duration = performance.now() - started;
      for (const observer of this.observers) observer.appended(streamId, events.length, result, duration);
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) for (const observer of this.observers) observer.refused(error);
      throw error;
    }
  }

  readStream(streamId: string, options?: ReadOptions): Promise<StoredEvent[]> {
    return this.store.readStream(streamId, options);
  }

  streamHead(streamId: string): Promise<number | null> {
    return this.store.streamHead(streamId);
  }

  readAll(options?: ReadOptions): Promise<StoredEvent[]> {
    return this.store.readAll(options);
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }

  subscribeToStream(streamId: string, options?: SubscribeOptions): AsyncIterable<StoredEvent> {
    return this.store.subscribeToStream(streamId, options);
  }

  subscribeToAll(options?: SubscribeOptions): AsyncIterable<StoredEvent> {
    return this.store.subscribeToAll(options);
  }

  subscribeToAllFiltered(options: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem> {
    return this.store.subscribeToAllFiltered(options);
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The adapter itself (tests reach SQLite through it to make it fail for real). */
  get inner(): EventStore {
    return this.store;
  }
}
