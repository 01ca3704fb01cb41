import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { nowIso } from '../../common/clock';
import { ExecutionCommand, decide } from '../domain/execution-decide';
import { LoadedExecution, TimedEvent, executionStream, foldAppended, loadExecution, toNewEvents } from '../execution-stream';

/** Bounds one append (and so one transaction's share) however far a provider runs ahead. */
const MAX_BATCH = 500;

interface Queued {
  command: ExecutionCommand;
  /** When the provider produced it: the events' occurredAt, however long they wait to be stored. */
  at: string;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Appends the commands of one execution in order, each against the revision it was decided on.
 * Commands that queue up while an append is in flight leave together as one append (rule 7 for
 * stores without group commit). A conflict means someone else wrote (an answer, a cancel): the
 * writer re-reads, re-decides, and lets the decider refuse if the execution has ended.
 */
export class StreamWriter {
  private queue: Queued[] = [];
  /** Set while the drain loop runs; cleared in the same turn the loop sees an empty queue. */
  private draining: Promise<void> | null = null;

  constructor(
    private readonly store: EventStore,
    private current: LoadedExecution,
  ) {}

  /** Commands waiting for their append. */
  get queued(): number {
    return this.queue.length;
  }

  get loaded(): LoadedExecution {
    return this.current;
  }

  write(command: ExecutionCommand): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, at: nowIso(), resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Drops queued commands that have not started to append; they reject with `reason`. */
  discardQueued(reason: unknown): void {
    const dropped = this.queue;
    this.queue = [];
    for (const item of dropped) item.reject(reason);
  }

  /** Resolves once nothing is being appended. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      try {
        await this.appendDecided(batch);
        batch.forEach((b) => b.resolve());
      } catch (error) {
        batch.forEach((b) => b.reject(error));
      }
    }
    // No await between the empty check and this reset, so a write can never find a finished drain.
    this.draining = null;
  }

  /** Consecutive `emit` commands merge into one; any other command travels alone. */
  private takeBatch() {
    const first = this.queue.shift()!;
    const batch = [first];
    if (first.command.type !== 'emit') return batch;
    while (this.queue[0]?.command.type === 'emit' && batch.length < MAX_BATCH) batch.push(this.queue.shift()!);
    return batch;
  }

  private async appendDecided(batch: Queued[]): Promise<void> {
    const { id } = this.current.state;
    for (;;) {
      const events: TimedEvent[] = batch.flatMap(({ command, at }) =>
        decide(command, this.current.state).map((event) => ({ event, at })),
      );
      if (events.length === 0) return;
      try {
        const { tenantId } = this.current;
        const news = events.flatMap(({ event, at }) => toNewEvents(id, [event], { tenantId, occurredAt: at }));
        await this.store.append(executionStream(id), news, this.current.revision);
        this.current = foldAppended(this.current, events);
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        this.current = (await loadExecution(this.store, id, this.current))!;
      }
    }
  }
}
