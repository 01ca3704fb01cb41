import { EventStore, StoreUnavailableError } from '../../event-store/event-store';
import { nowIso } from '../../common/clock';
import { TimedCommand, decideAndAppend } from '../commands/decide-and-append';
import { ExecutionCommand } from '../domain/execution-decide';
import { LoadedExecution } from '../execution-stream';

/** Bounds one append (and so one transaction's share) however far a provider runs ahead. */
const MAX_BATCH = 500;

export interface WriteOptions {
  /**
   * The execution's recorded end after a failure (run.failed, run.cancelled): never dropped,
   * retried until the store takes it or the process stops.
   */
  terminal?: boolean;
}

interface Queued extends TimedCommand {
  terminal: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Appends the commands of one execution in order, each against the revision it was decided on,
 * through the shared decide-and-append step.
 *
 * - Commands that queue up while an append is in flight leave together as one append (rule 7).
 * - While the store is unavailable the batch in flight is retried in place for `retryMs` and the
 *   queue behind it waits (the session bounds it, so the provider waits too): no later output is
 *   ever appended before it (rule 11).
 * - Past that bound the writer gives up on output for good: the batch and everything queued
 *   behind it are refused, and only terminal writes are still taken, so nothing follows a hole
 *   but the recorded end.
 */
export class StreamWriter {
  private queue: Queued[] = [];
  /** Set while the drain loop runs; cleared in the same turn the loop sees an empty queue. */
  private draining: Promise<void> | null = null;
  private gaveUp: StoreUnavailableError | null = null;
  /** The store's last answer was a refusal (cleared by the next success). */
  private failing: StoreUnavailableError | null = null;
  private readonly failureListeners = new Set<(error: StoreUnavailableError) => void>();
  private readonly halted = new AbortController();

  constructor(
    private readonly store: EventStore,
    private current: LoadedExecution,
    private readonly retryMs: number,
  ) {}

  /** Commands waiting for their append. */
  get queued(): number {
    return this.queue.length;
  }

  get loaded(): LoadedExecution {
    return this.current;
  }

  write(command: ExecutionCommand, { terminal = false }: WriteOptions = {}): Promise<void> {
    if (this.gaveUp && !terminal) return Promise.reject(this.gaveUp);
    return new Promise((resolve, reject) => {
      this.queue.push({ command, at: nowIso(), terminal, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Drops queued commands that have not started to append (terminal ones stay); they reject with `reason`. */
  discardQueued(reason: unknown): void {
    const dropped = this.queue.filter((q) => !q.terminal);
    this.queue = this.queue.filter((q) => q.terminal);
    for (const item of dropped) item.reject(reason);
  }

  /** Stops retrying (the process is going away): what is in flight fails at its next refusal. */
  halt(): void {
    this.halted.abort();
  }

  /** Resolves once nothing is being appended. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining.catch(() => undefined);
  }

  /** Resolves once nothing is being appended, or as soon as the store refuses an append. */
  async idleOrRefused(): Promise<void> {
    const refused = this.nextRefusal();
    try {
      await Promise.race([this.idle(), refused.promise]);
    } finally {
      refused.cancel();
    }
  }

  /** Settles with the store's refusal: at once while it is refusing, else at its next refusal. */
  private nextRefusal(): { promise: Promise<StoreUnavailableError>; cancel(): void } {
    let listener: (error: StoreUnavailableError) => void = () => undefined;
    const promise = new Promise<StoreUnavailableError>((resolve) => {
      if (this.failing) return resolve(this.failing);
      listener = resolve;
      this.failureListeners.add(listener);
    });
    return { promise, cancel: () => this.failureListeners.delete(listener) };
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      try {
        this.current = await decideAndAppend(this.store, this.current, batch, {
          retryMs: batch[0].terminal ? Infinity : this.retryMs,
          signal: this.halted.signal,
          onUnavailable: (error) => this.refused(error),
          onRecovered: () => (this.failing = null),
        });
        batch.forEach((b) => b.resolve());
      } catch (error) {
        batch.forEach((b) => b.reject(error));
        if (error instanceof StoreUnavailableError && !batch[0].terminal) {
          this.gaveUp ??= error;
          this.discardQueued(error);
        }
      }
    }
    // No await between the empty check and this reset, so a write can never find a finished drain.
    this.draining = null;
  }

  private refused(error: StoreUnavailableError): void {
    this.failing = error;
    for (const listener of [...this.failureListeners]) listener(error);
    this.failureListeners.clear();
  }

  /** Consecutive output (`emit`) commands merge into one append; any other command travels alone. */
  private takeBatch(): Queued[] {
    const first = this.queue.shift()!;
    const batch = [first];
    if (first.command.type !== 'emit') return batch;
    while (this.queue[0]?.command.type === 'emit' && batch.length < MAX_BATCH) batch.push(this.queue.shift()!);
    return batch;
  }
}
