import { randomBytes } from 'node:crypto';
import { EventMetadata, EventStore, NewEvent, StoredEvent, WrongExpectedRevisionError } from '../../../src/event-store/event-store';

/** Shared by the contract parts; `store` is set in the contract's beforeAll. */
export interface ContractContext {
  store: EventStore;
}

/** Upper bound for anything that waits on a subscription: a hang must fail, not block the run. */
export const WAIT_MS = 10_000;

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A stream id no other test, run or process uses, so the suite can run against a shared
 * EventStoreDB whose $all already holds (and keeps receiving) other events.
 */
export function streamId(label: string): string {
  return `contract_${label}-${Date.now().toString(36)}${randomBytes(5).toString('hex')}`;
}

export const defaultMetadata: EventMetadata = {
  tenantId: 'tenant-contract',
  schemaVersion: 1,
  correlationId: null,
  causationId: null,
};

export function ev(type: string, data: Record<string, unknown> = {}, extra: Partial<NewEvent> = {}): NewEvent {
  return { type, data, metadata: { ...defaultMetadata }, ...extra };
}

/** `n` events typed `type` carrying `{ i }` from `from`, to check order and identity on read. */
export function evs(n: number, type = 'test.happened', from = 0): NewEvent[] {
  return Array.from({ length: n }, (_, k) => ev(type, { i: from + k }));
}

export function revisions(events: StoredEvent[]): number[] {
  return events.map((e) => e.revision);
}

export function range(from: number, toExclusive: number): number[] {
  return Array.from({ length: toExclusive - from }, (_, k) => from + k);
}

export function expectStrictlyIncreasing(values: number[]): void {
  for (let k = 1; k < values.length; k++) {
    if (!(values[k] > values[k - 1])) {
      throw new Error(`not strictly increasing at index ${k}: ${values[k - 1]} then ${values[k]}`);
    }
  }
}

/** Asserts the rejection is the port's typed conflict error and returns it for further checks. */
export async function expectConflict(promise: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await promise.then(
    () => {
      throw new Error('expected WrongExpectedRevisionError, but the append succeeded');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return quiet(Promise.race([promise, timeout]).finally(() => clearTimeout(timer)));
}

/**
 * Marks a promise as handled while still rejecting for whoever awaits it: a test that fails before
 * awaiting its pending subscription must not crash the jest worker with an unhandled rejection
 * when that subscription ends later (e.g. on store close).
 */
export function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Passes events through, failing on one delivered twice. Besides checking "no duplicate", this
 * keeps a broken adapter that re-yields the same event in a loop from starving the event loop
 * (its yields are microtasks, so no timer, not even jest's timeout, would ever fire).
 */
export async function* guarded(iterable: AsyncIterable<StoredEvent>): AsyncGenerator<StoredEvent> {
  const seen = new Set<string>();
  for await (const event of iterable) {
    const key = `${event.streamId}@${event.revision}`;
    if (seen.has(key)) throw new Error(`event ${key} (position ${event.position}) delivered twice`);
    seen.add(key);
    yield event;
  }
}

export interface CollectOptions {
  /** Only events passing it count (and are returned); the rest are skipped. */
  filter?: (event: StoredEvent) => boolean;
  timeoutMs?: number;
  /** Runs once the iterator exists, before its first `next()`. */
  onStarted?: () => void;
}

/**
 * Iterates a subscription until `count` matching events arrived, then breaks out. On timeout the
 * subscription is aborted through its signal (so a stuck `next()` cannot outlive the test) and the
 * promise rejects saying how far it got.
 */
export function collect(subscribe: (signal: AbortSignal) => AsyncIterable<StoredEvent>, count: number, options: CollectOptions = {}): Promise<StoredEvent[]> {
  return quiet(collectUntil(subscribe, count, options));
}

async function collectUntil(
  subscribe: (signal: AbortSignal) => AsyncIterable<StoredEvent>,
  count: number,
  options: CollectOptions = {},
): Promise<StoredEvent[]> {
  const controller = new AbortController();
  const received: StoredEvent[] = [];
  const timeoutMs = options.timeoutMs ?? WAIT_MS;
  const run = (async () => {
    const iterable = subscribe(controller.signal);
    options.onStarted?.();
    if (count === 0) return received;
    for await (const event of guarded(iterable)) {
      if (options.filter && !options.filter(event)) continue;
      received.push(event);
      if (received.length >= count) break;
    }
    return received;
  })();
  try {
    const result = await withTimeout(run, timeoutMs, `waiting for ${count} events`);
    if (result.length < count) {
      throw new Error(`subscription ended after ${result.length} of ${count} events`);
    }
    return result;
  } catch (e) {
    controller.abort();
    const seen = received.map((x) => `${x.streamId}@${x.revision}`).join(', ');
    (e as Error).message += ` (received ${received.length}: ${seen.slice(0, 2000)})`;
    throw e;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The position of a fresh marker event: everything the test appends later lies after it. */
export async function currentPosition(store: EventStore): Promise<number> {
  const result = await store.append(streamId('marker'), [ev('test.marker')], 'no_stream');
  return result.position;
}

/**
 * Appends `total` events to `stream` in batches of 1–3, yielding to the event loop (and to other
 * writers) between appends, so that backlog reads and live delivery interleave with the writes.
 */
export async function trickle(store: EventStore, stream: string, total: number, from = 0): Promise<void> {
  let i = from;
  while (i < from + total) {
    const n = Math.min(1 + (i % 3), from + total - i);
    await store.append(stream, evs(n, 'test.trickled', i), 'any');
    i += n;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
