import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { AllSubscriptionItem, EventStore, StoredEvent, StoreUnavailableError } from '../event-store/event-store';
import { asStoreUnavailable } from '../event-store/sqlite/sqlite-errors';
import { backoff, retryDelay } from '../common/backoff';
import { PROJECTED_STREAM_PREFIXES, Projection } from './projection';
import { ProjectionCatalog } from './projection-catalog';

/** Items applied per transaction at most; what arrives in one read usually goes in one. */
const MAX_BATCH = 2000;
/** The least time between two flushes while events keep coming and no query waits (see scheduleFlush). */
const FLUSH_SPACING_MS = 50;

interface Bound {
  projection: Projection;
  apply: (events: StoredEvent[]) => void;
  position: number;
}

/**
 * Feeds every projection from one live catch-up subscription to `$all` (rule 5), filtered by the
 * store to the execution and conversation streams. What one read delivers is applied as one
 * batch: each projection's rows and its checkpoint in one SQLite transaction. The checkpoint is
 * the last position *read* (the store's checkpoints cover events no projection wants), so a
 * restart resumes exactly there.
 *
 * When the read-model file cannot be written, the batch stays and is retried with backoff; the
 * checkpoint never moves past what was stored, and the subscription waits meanwhile.
 */
export class Projector {
  private readonly logger = new Logger('Projector');
  private readonly bound: Bound[];
  private readonly catalog: ProjectionCatalog;
  private buffer: AllSubscriptionItem[] = [];
  private flushScheduled = false;
  private flushTimer: NodeJS.Timeout | undefined;
  private lastFlush = 0;
  private flushing: Promise<void> | null = null;
  /** The last position handed to the buffer: where a resubscription starts. */
  private read = 0;
  private failing: StoreUnavailableError | null = null;
  private waiters: { position: number; resolve(): void }[] = [];
  private readonly stopping = new AbortController();
  private running: Promise<void> | null = null;
  /** Every projection has applied everything up to here. */
  private applied = 0;

  constructor(
    private readonly store: EventStore,
    private readonly db: Database.Database,
    projections: readonly Projection[],
  ) {
    this.catalog = new ProjectionCatalog(db);
    const rebuilt = this.catalog.prepare(projections);
    if (rebuilt.length > 0) this.logger.log(`rebuilding from the event log: ${rebuilt.join(', ')}`);
    this.bound = projections.map((projection) => ({
      projection,
      apply: projection.bind(db),
      position: this.catalog.checkpoint(projection.name),
    }));
    this.applied = Math.min(...this.bound.map((b) => b.position));
    this.read = this.applied;
  }

  /** The projections with the positions they have applied. */
  get positions(): { name: string; position: number }[] {
    return this.bound.map((b) => ({ name: b.projection.name, position: b.position }));
  }

  get position(): number {
    return this.applied;
  }

  /** The read-model file refuses writes right now. */
  get problem(): StoreUnavailableError | null {
    return this.failing;
  }

  start(): void {
    this.running ??= this.follow().catch((error) => {
      if (!this.stopping.signal.aborted) this.logger.error(`projections stopped: ${(error as Error).message}`, (error as Error).stack);
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.flushTimer);
    await this.running;
    for (const waiter of this.waiters) waiter.resolve();
    this.waiters = [];
  }

  /**
   * Resolves once every projection has applied everything up to `position`; rejects with
   * `StoreUnavailableError` after `timeoutMs` (the projector is stuck: a read-model file that
   * cannot be written, a store that cannot be read).
   */
  async waitFor(position: number, timeoutMs: number): Promise<void> {
    if (this.applied >= position || this.stopping.signal.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    const waiter = { position, resolve: () => undefined as void };
    const reached = new Promise<void>((resolve) => {
      waiter.resolve = resolve;
      this.waiters.push(waiter);
    });
    // What is read but held back for the spacing goes now: a query is waiting for it.
    if (this.flushTimer) setImmediate(() => this.runScheduledFlush());
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.failing ?? new StoreUnavailableError(`the read models are ${position - this.applied} positions behind the event log`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([reached, late]);
    } finally {
      clearTimeout(timer);
      // A waiter that timed out must not stay behind while the projector is stuck.
      this.waiters = this.waiters.filter((w) => w !== waiter);
    }
  }

  /** Follows `$all`, resubscribing from what it has read when the store cannot be read for a while. */
  private async follow(): Promise<void> {
    for (let failures = 1; !this.stopping.signal.aborted; failures++) {
      try {
        const subscription = this.store.subscribeToAllFiltered({
          filter: { streamPrefixes: PROJECTED_STREAM_PREFIXES },
          after: this.read,
          signal: this.stopping.signal,
        });
        for await (const item of subscription) {
          this.buffer.push(item);
          this.read = positionOf(item);
          failures = 1;
          // A full buffer (or one the file keeps refusing) holds the subscription back.
          if (this.buffer.length >= MAX_BATCH) await this.flushUntilStored().catch((error) => this.fail(error));
          else this.scheduleFlush();
        }
        return;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        this.logger.warn(`cannot read the event log, resubscribing: ${error.message}`);
        if (!(await retryDelay(backoff(failures), this.stopping.signal))) return;
      }
    }
  }

  /**
   * One flush after the current read: everything it delivered goes in one transaction. Under a
   * steady stream of small commits the flushes are spaced at least FLUSH_SPACING_MS apart, so the
   * read models take one transaction for many of the log's; a query that waits for a write ends
   * the spacing at once, so read-your-writes never pays for it.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const wait = this.lastFlush + FLUSH_SPACING_MS - performance.now();
    // A query waiting for a write does not wait for the spacing.
    if (wait <= 0 || this.waiters.length > 0) setImmediate(() => this.runScheduledFlush());
    else this.flushTimer = setTimeout(() => this.runScheduledFlush(), wait);
  }

  private runScheduledFlush(): void {
    if (!this.flushScheduled) return;
    this.flushScheduled = false;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.lastFlush = performance.now();
    this.flushUntilStored().catch((error) => this.fail(error));
  }

  /** Applies the buffer, retrying with backoff while the file refuses it; one such loop at a time. */
  private flushUntilStored(): Promise<void> {
    // `finally` runs after the assignment even when the flush completes at once.
    this.flushing ??= this.retryFlush().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async retryFlush(): Promise<void> {
    for (let failures = 1; this.buffer.length > 0 && !this.stopping.signal.aborted; failures++) {
      if (this.flush()) continue;
      if (!(await retryDelay(backoff(failures), this.stopping.signal))) return;
    }
  }

  /** Applies the buffer in one transaction; false (buffer kept) when the file refused it. */
  private flush(): boolean {
    const items = this.buffer;
    const last = positionOf(items[items.length - 1]);
    const events = items.flatMap((item) => (item.kind === 'event' ? [item.event] : []));
    try {
      this.db.transaction(() => {
        for (const bound of this.bound) {
          if (last <= bound.position) continue;
          const fresh = events.filter((event) => event.position > bound.position);
          if (fresh.length > 0) bound.apply(fresh);
          this.catalog.setCheckpoint(bound.projection.name, last);
        }
      })();
    } catch (error) {
      const refusal = asStoreUnavailable(error, 'the read-model file');
      if (!(refusal instanceof StoreUnavailableError)) throw error;
      if (!this.failing) this.logger.warn(`cannot write the read models, retrying: ${refusal.message}`);
      this.failing = refusal;
      return false;
    }
    if (this.failing) this.logger.log('the read models are being written again');
    this.failing = null;
    this.buffer = [];
    for (const bound of this.bound) bound.position = Math.max(bound.position, last);
    this.applied = Math.max(this.applied, last);
    this.release();
    return true;
  }

  /** A projection that throws on an event is a bug: stop projecting (queries then answer 503) and say so. */
  private fail(error: unknown): void {
    this.logger.error(`a projection failed, the read models stop here: ${(error as Error).message}`, (error as Error).stack);
    this.failing = new StoreUnavailableError(`the read models stopped on an error: ${(error as Error).message}`);
    this.stopping.abort();
  }

  private release(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.position <= this.applied) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }
}

const positionOf = (item: AllSubscriptionItem) => (item.kind === 'event' ? item.event.position : item.position);
