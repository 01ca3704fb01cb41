import {
  AllSubscriptionItem,
  AppendResult,
  CountOptions,
  EventStore,
  ExpectedRevision,
  FilteredSubscribeOptions,
  NewEvent,
  ReadOptions,
  StoredEvent,
  StoreUnavailableError,
  SubscribeOptions,
  WrongExpectedRevisionError,
} from './event-store';
import { AppendsInFlight } from './appends-in-flight';
import { mapped } from './mapped-iterable';
import { upcast } from './upcasters';
import type { Span } from '@opentelemetry/api';
import { ExpectedOutcome, inSpan, tracingOn } from '../observability/tracing';

/** A conflict is how commands learn to re-read and re-decide (docs/design.md#overview), not a failure of the store. */
const revisionConflict: ExpectedOutcome = (error) => (error instanceof WrongExpectedRevisionError ? 'REVISION_CONFLICT' : null);

/** Told the outcome of every append the application makes (readiness, read-your-writes, metrics). */
export interface AppendObserver {
  appended(streamId: string, events: readonly NewEvent[], result: AppendResult, durationMs: number): void;
  refused(error: StoreUnavailableError): void;
}

/**
 * The configured adapter as the application sees it: every append's outcome is reported to the
 * observers, and every event read comes back upcast to its current schema version.
 */
export class EventStoreGateway implements EventStore {
  private readonly observers: AppendObserver[] = [];
  /** Every append made through here until it settles, after its observers were told (read-your-writes). */
  readonly inFlight = new AppendsInFlight();

  constructor(private readonly store: EventStore) {}

  /** Modules that care (readiness, projections, metrics) register as they start. */
  observe(observer: AppendObserver): void {
    this.observers.push(observer);
  }

  get kind(): EventStore['kind'] {
    return this.store.kind;
  }

  get instances(): EventStore['instances'] {
    return this.store.instances;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    // Every streamed delta comes through here: no span's attributes are built for no SDK.
    if (!tracingOn()) return this.observed(streamId, events, expected, null);
    const attributes = {
      'runledger.stream_id': streamId,
      'runledger.event_count': events.length,
      'runledger.expected_revision': String(expected),
      'runledger.event_store': this.store.kind,
    };
    return inSpan('eventstore.append', attributes, (span) => this.observed(streamId, events, expected, span), { expected: revisionConflict });
  }

  private async observed(streamId: string, events: NewEvent[], expected: ExpectedRevision, span: Span | null): Promise<AppendResult> {
    const started = performance.now();
    const append = this.inFlight.begin();
    try {
      const result = await this.store.append(streamId, events, expected);
      const duration = performance.now() - started;
      span?.setAttribute('runledger.next_revision', result.nextRevision);
      for (const observer of this.observers) observer.appended(streamId, events, result, duration);
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) for (const observer of this.observers) observer.refused(error);
      throw error;
    } finally {
      this.inFlight.settle(append);
    }
  }

  async readStream(streamId: string, options?: ReadOptions): Promise<StoredEvent[]> {
    return (await this.store.readStream(streamId, options)).map(upcast);
  }

  streamHead(streamId: string): Promise<number | null> {
    return this.store.streamHead(streamId);
  }

  async lastEvent(streamId: string): Promise<StoredEvent | null> {
    const last = await this.store.lastEvent(streamId);
    return last && upcast(last);
  }

  streamTenant(streamId: string): Promise<string | null> {
    return this.store.streamTenant(streamId);
  }

  async readAll(options?: ReadOptions): Promise<StoredEvent[]> {
    return (await this.store.readAll(options)).map(upcast);
  }

  headPosition(): Promise<number> {
    return this.store.headPosition();
  }

  countAll(options: CountOptions): Promise<number> {
    return this.store.countAll(options);
  }

  subscribeToStream(streamId: string, options?: SubscribeOptions): AsyncIterable<StoredEvent> {
    return mapped(this.store.subscribeToStream(streamId, options), upcast);
  }

  subscribeToAll(options?: SubscribeOptions): AsyncIterable<StoredEvent> {
    return mapped(this.store.subscribeToAll(options), upcast);
  }

  subscribeToAllFiltered(options: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem> {
    return mapped(this.store.subscribeToAllFiltered(options), (item) => (item.kind === 'event' ? { kind: 'event', event: upcast(item.event) } : item));
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The adapter itself (tests reach SQLite through it to make it fail for real). */
  get inner(): EventStore {
    return this.store;
  }
}

/** The appends in flight through `store` when it is the observed gateway (the app's store always is). */
export const inFlightOf = (store: EventStore): AppendsInFlight | null => (store instanceof EventStoreGateway ? store.inFlight : null);
