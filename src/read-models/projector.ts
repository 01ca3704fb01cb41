import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { EventStore, StoreUnavailableError } from '../event-store/event-store';
import { Processor, ProcessorBatch } from '../event-store/processor';
import { AppliedWaiters } from './applied-waiters';
import { PROJECTED_STREAM_PREFIXES, Projection } from './projection';
import { ProjectionCatalog } from './projection-catalog';
import { ReadModelTransaction } from './read-model-transaction';

/** The least time between two batches while events keep coming and no query waits. */
const BATCH_SPACING_MS = 50;

/**
 * Feeds every projection from one processor on `$all`, filtered by the store to the execution and
 * conversation streams: each batch is one transaction over the read-model database. Under a
 * steady stream of small commits the batches are spaced, so the read models take one transaction
 * for many of the log's; a query that waits for a write ends the spacing at once, so
 * read-your-writes never pays for it.
 *
 * When the read-model file cannot be written, the batch stays and is retried with backoff; the
 * checkpoint never moves past what was stored, and the subscription waits meanwhile.
 */
export class Projector {
  private readonly logger = new Logger('Projector');
  private readonly transaction: ReadModelTransaction;
  private readonly processor: Processor;
  private readonly waiters = new AppliedWaiters();
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    store: EventStore,
    db: Database.Database,
    projections: readonly Projection[],
    /** The streams it follows; a projector of its own file (the webhooks') names its own. */
    streamPrefixes: readonly string[] = PROJECTED_STREAM_PREFIXES,
  ) {
    const catalog = new ProjectionCatalog(db);
    const rebuilt = catalog.prepare(projections);
    if (rebuilt.length > 0) this.logger.log(`rebuilding from the event log: ${rebuilt.join(', ')}`);
    this.transaction = new ReadModelTransaction(db, catalog, projections);
    this.processor = new Processor(store, {
      name: 'Projector',
      writes: 'the read models',
      filter: { streamPrefixes },
      from: this.transaction.position,
      handle: (batch) => this.apply(batch),
      spacingMs: BATCH_SPACING_MS,
      urgent: () => this.waiters.waiting,
    });
  }

  /** The projections with the positions they have applied. */
  get positions(): { name: string; position: number }[] {
    return this.transaction.positions;
  }

  /** Every projection has applied everything up to here. */
  get position(): number {
    return this.transaction.position;
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

  private apply(batch: ProcessorBatch): void {
    this.transaction.apply(batch);
    this.waiters.release(this.position);
  }
}
