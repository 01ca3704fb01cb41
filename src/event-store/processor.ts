import { Logger } from '@nestjs/common';
import { backoff, retryDelay } from '../common/backoff';
import { AllFilter, AllSubscriptionItem, EventStore, StoredEvent, StoreUnavailableError } from './event-store';

/** What a processor hands its handler: the events of one or more reads, and how far they reach. */
export interface ProcessorBatch {
  /** The matching events, in log order (possibly none: the store only moved its checkpoint). */
  events: StoredEvent[];
  /** Everything up to here has been read, matching or not: the checkpoint to store with the effects. */
  position: number;
}

export interface ProcessorOptions {
  /** Its logger's context. */
  name: string;
  /** What the handler writes, plural, for the log lines and errors: "the read models". */
  writes: string;
  filter: AllFilter;
  /**
   * Where following starts: a stored checkpoint, or the head (`await store.headPosition()`) for a
   * follower whose checkpoint lives in memory and that cares only for what comes after its start.
   */
  from: number;
  /**
   * Applies one batch and stores `batch.position` with its effects, atomically, so that a restart
   * from the stored checkpoint neither skips nor repeats an effect. A `StoreUnavailableError` keeps
   * the batch (what arrives meanwhile joins it) and retries it with backoff; any other error is a
   * bug: the processor stops and says so.
   */
  handle(batch: ProcessorBatch): void | Promise<void>;
  /** Items handed over at once at most; a full batch holds the subscription back. 2000 unless told. */
  maxBatch?: number;
  /**
   * The least time between two batches while items keep coming, so that one batch covers many of
   * the log's commits; `hurry` and `urgent` end it. 0 (every read at once) unless told.
   */
  spacingMs?: number;
  /** Someone waits for what has been read: it goes at once, whatever the spacing. */
  urgent?(): boolean;
  /**
   * Leaves out buffered items the handler need not see (it must keep the last one): when the
   * buffer not yet handed over is full, and frees half of it or more, the subscription goes on
   * instead of waiting for the handler. The projector's drops superseded streamed output.
   */
  compact?(items: AllSubscriptionItem[]): AllSubscriptionItem[];
}

const positionOf = (item: AllSubscriptionItem) => (item.kind === 'event' ? item.event.position : item.position);

/**
 * A checkpointed follower of `$all` (docs/design.md#read-models-and-consistency): subscribes
 * (filtered by the store) from a checkpoint, hands what each read delivers to its handler as one
 * batch, and resubscribes from what it has read when the store cannot be read for a while.
 * The projector, the owner's follower and a webhook deliverer differ only in their handler.
 */
export class Processor {
  private readonly logger: Logger;
  private readonly maxBatch: number;
  private readonly spacingMs: number;
  private buffer: AllSubscriptionItem[] = [];
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private lastHandled = 0;
  private handling: Promise<void> | null = null;
  /** The buffer's first items, which the handler holds right now. */
  private handingOver = 0;
  /** The last position handed to the buffer: where a resubscription starts. */
  private read: number;
  /** The last position the handler took. */
  private handled: number;
  private refusal: StoreUnavailableError | null = null;
  private readonly stopping = new AbortController();

  constructor(
    private readonly store: EventStore,
    private readonly options: ProcessorOptions,
  ) {
    this.logger = new Logger(options.name);
    this.maxBatch = options.maxBatch ?? 2000;
    this.spacingMs = options.spacingMs ?? 0;
    this.read = this.handled = options.from;
  }

  /** Everything up to here has been handled. */
  get position(): number {
    return this.handled;
  }

  /** It follows no more: `run`'s signal aborted, or the handler failed. */
  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Why the handler cannot take batches now (refused, or stopped on an error); null when it can. */
  get problem(): StoreUnavailableError | null {
    return this.refusal;
  }

  /**
   * Follows until `signal` aborts (or the handler fails); resolves then, after the batch in hand
   * was handled or given up (a restart from the checkpoint goes on from there).
   */
  async run(signal: AbortSignal): Promise<void> {
    const stop = () => this.stopping.abort();
    if (signal.aborted) return;
    signal.addEventListener('abort', stop, { once: true });
    try {
      await this.follow();
    } catch (error) {
      if (!this.stopping.signal.aborted) this.logger.error(`stopped: ${(error as Error).message}`, (error as Error).stack);
    } finally {
      signal.removeEventListener('abort', stop);
      this.stopping.abort();
      clearTimeout(this.timer);
      await this.handling?.catch(() => undefined);
    }
  }

  /** What is read but held back for the spacing goes now. */
  hurry(): void {
    if (this.timer) setImmediate(() => this.runScheduled());
  }

  private async follow(): Promise<void> {
    const { signal } = this.stopping;
    for (let failures = 1; !signal.aborted; failures++) {
      try {
        for await (const item of this.store.subscribeToAllFiltered({ filter: this.options.filter, after: this.read, signal })) {
          this.buffer.push(item);
          this.read = positionOf(item);
          failures = 1;
          // A full buffer (or one the handler keeps refusing) holds the subscription back.
          if (this.unhanded() >= this.maxBatch && this.compacted() > this.maxBatch / 2) await this.handleUntilTaken().catch((error) => this.fail(error));
          else this.schedule();
        }
        return;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
        this.logger.warn(`cannot read the event log, resubscribing: ${error.message}`);
        if (!(await retryDelay(backoff(failures), signal))) return;
      }
    }
  }

  private unhanded(): number {
    return this.buffer.length - this.handingOver;
  }

  /** Compacts what the handler does not hold (in place: handOver slices past what it holds); answers what is left of it. */
  private compacted(): number {
    if (!this.options.compact) return this.unhanded();
    const rest = this.options.compact(this.buffer.slice(this.handingOver));
    this.buffer.length = this.handingOver;
    for (const item of rest) this.buffer.push(item);
    return rest.length;
  }

  /** One batch after the current read, spaced from the last one unless someone waits. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastHandled + this.spacingMs - performance.now();
    if (wait <= 0 || this.options.urgent?.()) setImmediate(() => this.runScheduled());
    else this.timer = setTimeout(() => this.runScheduled(), wait);
  }

  private runScheduled(): void {
    if (!this.scheduled) return;
    this.scheduled = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lastHandled = performance.now();
    this.handleUntilTaken().catch((error) => this.fail(error));
  }

  /** Hands the buffer over, retrying with backoff while the handler refuses it; one such loop at a time. */
  private handleUntilTaken(): Promise<void> {
    // `finally` runs after the assignment even when the handler takes the batch at once.
    this.handling ??= this.retryHandle().finally(() => (this.handling = null));
    return this.handling;
  }

  private async retryHandle(): Promise<void> {
    for (let failures = 1; this.buffer.length > 0 && !this.stopping.signal.aborted; failures++) {
      if (await this.handOver()) continue;
      if (!(await retryDelay(backoff(failures), this.stopping.signal))) return;
    }
  }

  /** False (buffer kept) when the handler refused the batch. */
  private async handOver(): Promise<boolean> {
    const items = this.buffer;
    // Items read while an asynchronous handler runs join this same array: they stay for the next batch.
    const count = items.length;
    const position = positionOf(items[count - 1]);
    const events = items.slice(0, count).flatMap((item) => (item.kind === 'event' ? [item.event] : []));
    this.handingOver = count;
    try {
      await this.options.handle({ events, position });
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (!this.refusal) this.logger.warn(`cannot write ${this.options.writes}, retrying: ${error.message}`);
      this.refusal = error;
      return false;
    } finally {
      this.handingOver = 0;
    }
    if (this.refusal) this.logger.log(`${this.options.writes} are being written again`);
    this.refusal = null;
    this.buffer = this.buffer.slice(count);
    this.handled = Math.max(this.handled, position);
    return true;
  }

  /** A handler that throws on an event is a bug: stop here (its checkpoint stays) and say so. */
  private fail(error: unknown): void {
    this.logger.error(`a batch failed, ${this.options.writes} stop here: ${(error as Error).message}`, (error as Error).stack);
    this.refusal = new StoreUnavailableError(`${this.options.writes} stopped on an error: ${(error as Error).message}`);
    this.stopping.abort();
  }
}
