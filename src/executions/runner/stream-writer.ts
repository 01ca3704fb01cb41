import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { nowIso } from '../../common/clock';
import { ExecutionCommand, decide } from '../domain/execution-decide';
import { ExecutionEvent, RecordedExecutionEvent } from '../domain/execution-events';
import { evolve } from '../domain/execution-state';
import { LoadedExecution, executionStream, loadExecution, toNewEvents } from '../execution-stream';

/** Bounds one append (and so one transaction's share) however far a provider runs ahead. */
const MAX_BATCH = 500;

/** The state after our own append, folded locally instead of read back. */
function foldAppended(loaded: LoadedExecution, events: ExecutionEvent[], occurredAt: string): LoadedExecution {
  let { state, revision } = loaded;
  for (const event of events) {
    revision += 1;
    state = evolve(state, { ...event, sequence: revision + 1, occurredAt } as RecordedExecutionEvent, state.id);
  }
  return { ...loaded, state, revision };
}

/**
 * Appends the commands of one execution in order, each against the revision it was decided on.
 * Commands that queue up while an append is in flight leave together as one append (rule 7 for
 * stores without group commit). A conflict means someone else wrote (an answer, a cancel): the
 * writer re-reads, re-decides, and lets the decider refuse if the execution has ended.
 */
export class StreamWriter {
  private queue: { command: ExecutionCommand; resolve(): void; reject(error: unknown): void }[] = [];
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
      this.queue.push({ command, resolve, reject });
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
        await this.appendDecided(batch.map((b) => b.command));
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

  private async appendDecided(commands: ExecutionCommand[]): Promise<void> {
    const { id } = this.current.state;
    for (;;) {
      const events = commands.flatMap((command) => decide(command, this.current.state));
      if (events.length === 0) return;
      try {
        const occurredAt = nowIso();
        const news = toNewEvents(id, events, { tenantId: this.current.tenantId, occurredAt });
        await this.store.append(executionStream(id), news, this.current.revision);
        this.current = foldAppended(this.current, events, occurredAt);
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        this.current = (await loadExecution(this.store, id, this.current))!;
      }
    }
  }
}
