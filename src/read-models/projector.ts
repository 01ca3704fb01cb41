import { Logger } from '@nestjs/common';
import { EventStore, StoreUnavailableError } from '../event-store/event-store';
import { Processor, ProcessorBatch } from '../event-store/processor';
import { AppliedWaiters } from './applied-waiters';
import { PROJECTED_STREAM_PREFIXES } from './projection';
import { ReadModelWriter, lowestPosition } from './read-model-writer';
import { itemsWithoutSupersededStreamed, withoutSupersededStreamed } from './streamed-events';

/** The least time between two batches while events keep coming and no query waits. */
const BATCH_SPACING_MS = 50;

/**
 * Feeds every projection from one processor on `$all`, filtered by the store to the execution and
 * conversation streams: each batch is one transaction over the read-model database, run by its
 * writer (the projector thread, unless `READ_MODEL_WRITER=inline`). Under a steady stream of
 * small commits the batches are spaced, so the read models take one transaction for many of the
 * log's; a query that waits for a write ends the spacing at once, so
 * read-your-writes never pays for it.
 *
 * When the read-model file cannot be written, the batch stays and is retried with backoff; the
 * checkpoint never moves past what was stored, and the subscription waits meanwhile.
 */
export class Projector {
  private readonly logger = new Logger('Projector');
  private readonly processor: Processor;
  private readonly waiters = new AppliedWaiters();
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    store: EventStore,
    /** Applies each batch: on the event loop, or through the projector thread. */
    readonly writer: ReadModelWriter,
    /** The streams it follows; a projector of its own file (the webhooks') names its own. */
    streamPrefixes: readonly string[] = PROJECTED_STREAM_PREFIXES,
  ) {
    if (writer.rebuilt.length > 0) this.logger.log(`rebuilding from the event log: ${writer.rebuilt.join(', ')}`);
    this.processor = new Processor(store, {
      name: 'Projector',
      writes: 'the read models',
      filter: { streamPrefixes },
      from: lowestPosition(writer),
      handle: (batch) => this.apply(batch),
      spacingMs: BATCH_SPACING_MS,
      urgent: () => this.waiters.waiting,
      compact: itemsWithoutSupersededStreamed,
    });
  }

  /** The projections with the positions they have applied. */
  get positions(): { name: string; position: number }[] {
    return this.writer.positions;
  }

  /** Every projection has applied everything up to here. */
  get position(): number {
    return lowestPosition(this.writer);
  }

  /** The read-model file refuses writes right now, or the projector stopped on an error. */
  get problem(): StoreUnavailableError | null {
    return this.processor.problem;
  }

  start(): void {
    this.running ??= this.processor.run(this.stopping.signal);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
    this.waiters.releaseAll();
  }

  /**
   * Resolves once every projection has applied everything up to `position`; rejects with
   * `StoreUnavailableError` after `timeoutMs` (the projector is stuck: a read-model file that
   * cannot be written, a store that cannot be read).
   */
  async waitFor(position: number, timeoutMs: number): Promise<void> {
    if (this.position >= position || this.stopping.signal.aborted || this.processor.stopped) return;
    const waiting = this.waiters.waitFor(
      position,
      timeoutMs,
      () => this.problem ?? new StoreUnavailableError(`the read models are ${position - this.position} positions behind the event log`),
    );
    // What is read but held back for the spacing goes now: a query is waiting for it.
    this.processor.hurry();
    await waiting;
  }

  private async apply(batch: ProcessorBatch): Promise<void> {
    try {
      await this.writer.apply({ events: withoutSupersededStreamed(batch.events), position: batch.position });
    } catch (error) {
      // A query waiting for this batch answers 503 now rather than at its timeout.
      if (error instanceof StoreUnavailableError) this.waiters.rejectAll(error);
      throw error;
    }
    this.waiters.release(this.position);
  }
}
