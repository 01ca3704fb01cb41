import type { Worker } from 'node:worker_threads';
import { AppendResult, EncodedEvent, ExpectedRevision, StoreUnavailableError, WrongExpectedRevisionError } from './event-store';
import type { AppendRequest, WriterFailure, WriterRequest, WriterResponse } from './writer-messages';
import type { CommittedAppend } from './recent-events';

interface Pending {
  streamId: string;
  rows: EncodedEvent[];
  resolve(result: AppendResult): void;
  reject(error: Error): void;
}

function errorOf(failure: WriterFailure): Error {
  switch (failure.kind) {
    case 'conflict':
      return new WrongExpectedRevisionError(failure.streamId, failure.expected, failure.actual);
    case 'unavailable':
      return new StoreUnavailableError(failure.message, Object.assign(new Error(failure.causeMessage), { code: failure.code }));
    default:
      return Object.assign(new Error(failure.message), failure.code === undefined ? {} : { code: failure.code });
  }
}

/**
 * The event loop's side of a writer thread (sqlite/writer-thread.ts, postgres/writer-thread.ts):
 * posts encoded appends and settles each one from the thread's answer. A thread that dies leaves
 * its appends' outcomes unknown, so they are refused as `StoreUnavailableError` (the caller
 * retries with the same event ids: docs/design.md#the-sqlite-writer-thread), and the next append
 * starts a new thread.
 */
export class WriterClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /**
   * Appends asked for by one callback and its microtasks, posted together: one message, not one per
   * execution, when a commit's answer lets many executions append their next batch. Not held to
   * setImmediate, which measured more latency than the messages it saved.
   */
  private outbox: AppendRequest[] = [];
  private nextId = 1;
  private closed: Promise<void> | null = null;
  /** Told the size of each group commit (metrics). */
  onCommit: ((appends: number, events: number) => void) | null = null;

  constructor(
    /** Starts a thread (unref'd here); `what` names it in errors ("the SQLite writer thread"). */
    private readonly spawn: () => Worker,
    private readonly what: string,
    /** Called once per commit with the appends it stored, after their promises settled. */
    private readonly committed: (appends: CommittedAppend[]) => void,
    /** Called when a thread dies: it may have committed appends nobody was told of. */
    private readonly lost: () => void = () => undefined,
  ) {}

  append(streamId: string, rows: EncodedEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    const worker = this.thread();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { streamId, rows, resolve, reject });
      // Referenced only while it holds appends: an idle writer never keeps the process alive.
      if (this.pending.size === 1) worker.ref();
      if (this.outbox.length === 0) queueMicrotask(() => this.flush(worker));
      this.outbox.push({ id, streamId, expected, rows });
    });
  }

  /** Fault tests: a pragma on the write connection, applied before any append posted after it. */
  pragma(sql: string): void {
    this.post(this.thread(), { kind: 'pragma', sql });
  }

  /** Fault tests: the thread ends after its next commit, before acknowledging it. */
  crashAfterNextCommit(): void {
    this.post(this.thread(), { kind: 'crash-after-commit' });
  }

  /** Commits what the thread holds, then ends it; appends after this are refused. */
  close(): Promise<void> {
    this.closed ??= this.stop();
    return this.closed;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    this.post(worker, { kind: 'close' });
    await exited;
  }

  /** Every other message leaves after the appends asked for before it. */
  private post(worker: Worker, request: WriterRequest): void {
    this.flush(worker);
    worker.postMessage(request);
  }

  private flush(worker: Worker): void {
    if (this.outbox.length === 0 || this.worker !== worker) return;
    const appends = this.outbox;
    this.outbox = [];
    worker.postMessage({ kind: 'appends', appends } satisfies WriterRequest);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = this.spawn();
    worker.unref();
    let failure: Error | null = null;
    worker.on('message', (message: WriterResponse) => {
      if (message.kind === 'settled') this.settle(message);
    });
    worker.on('error', (error) => (failure = error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      this.lost();
      const reason = failure ? failure.message : `exit code ${code}`;
      const lost = [...this.pending.values()];
      this.pending.clear();
      this.outbox = [];
      for (const pending of lost) {
        pending.reject(new StoreUnavailableError(`${this.what} stopped (${reason}); the append may or may not be stored`, failure ?? undefined));
      }
    });
    this.worker = worker;
    return worker;
  }

  private settle({ outcomes, commits }: Extract<WriterResponse, { kind: 'settled' }>): void {
    const stored: CommittedAppend[] = [];
    for (const outcome of outcomes) {
      const pending = this.pending.get(outcome.id);
      if (!pending) continue;
      this.pending.delete(outcome.id);
      if ('result' in outcome) {
        pending.resolve(outcome.result);
        stored.push({ streamId: pending.streamId, rows: pending.rows, result: outcome.result });
      } else pending.reject(errorOf(outcome.failure));
    }
    if (this.pending.size === 0 && !this.closed) this.worker?.unref();
    for (const { appends, events } of commits) this.onCommit?.(appends, events);
    if (stored.length > 0) this.committed(stored);
  }
}
