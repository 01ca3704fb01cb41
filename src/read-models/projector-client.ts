import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../common/spawn-worker';
import { StoreUnavailableError } from '../event-store/event-store';
import { ProcessorBatch } from '../event-store/processor';
import { Positions, ProjectorRequest, ProjectorResponse, ProjectorThreadData, toWire } from './projector-messages';
import { ReadModelWriter } from './read-model-writer';

interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The event loop's side of the projector thread (projector-thread.ts). A thread that dies leaves
 * the batch it held refused as `StoreUnavailableError` (the processor keeps it and retries with
 * backoff), and the next batch starts a new thread, which resumes from the checkpoints it stored:
 * a batch it had committed before dying is skipped there, event by event, so nothing is applied
 * twice (docs/design.md#the-projector-thread).
 */
export class ProjectorClient implements ReadModelWriter {
  private worker: Worker | null = null;
  private starting: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private stored: Positions = [];
  rebuilt: readonly string[] = [];

  private constructor(private readonly data: ProjectorThreadData) {}

  /** Resolves once the thread has opened the file and prepared its projections (rejects if it cannot). */
  static async start(data: ProjectorThreadData): Promise<ProjectorClient> {
    const client = new ProjectorClient(data);
    await client.thread();
    return client;
  }

  get positions(): Positions {
    return this.stored;
  }

  async apply(batch: ProcessorBatch): Promise<void> {
    let worker: Worker;
    try {
      worker = await this.thread();
    } catch (error) {
      throw new StoreUnavailableError(`the projector thread cannot start: ${(error as Error).message}`, error);
    }
    const id = this.nextId++;
    await new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      this.post(worker, { kind: 'apply', id, events: batch.events.map(toWire), position: batch.position });
    });
  }

  pragma(sql: string): void {
    if (this.worker) this.post(this.worker, { kind: 'pragma', sql });
  }

  /** Fault tests: the thread ends after its next transaction commits, before acknowledging it. */
  crashAfterNextCommit(): void {
    if (this.worker) this.post(this.worker, { kind: 'crash-after-commit' });
  }

  /** Ends the thread once it has answered what it holds (the projector has stopped before). */
  async close(): Promise<void> {
    this.closed = true;
    const worker = await this.starting?.catch(() => null);
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    this.post(worker, { kind: 'close' });
    await exited;
  }

  private post(worker: Worker, request: ProjectorRequest): void {
    worker.postMessage(request);
  }

  private thread(): Promise<Worker> {
    if (this.closed) return Promise.reject(new Error('the read-model file is closed'));
    this.starting ??= this.spawn().catch((error: unknown) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  private spawn(): Promise<Worker> {
    const worker = spawnWorker(__dirname, 'projector-thread', { workerData: this.data });
    // Referenced only while it holds a batch: an idle projector never keeps the process alive.
    worker.unref();
    let failure: Error | null = null;
    return new Promise((resolve, reject) => {
      worker.on('message', (message: ProjectorResponse) => {
        if (message.kind === 'ready') {
          this.stored = message.positions;
          this.rebuilt = message.rebuilt;
          this.worker = worker;
          resolve(worker);
        } else this.settle(message);
      });
      worker.on('error', (error) => (failure = error));
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = null;
        if (this.starting && !this.closed) this.starting = null;
        const reason = failure ? failure.message : `exit code ${code}`;
        reject(failure ?? new Error(`the projector thread ended before it was ready (${reason})`));
        const lost = [...this.pending.values()];
        this.pending.clear();
        for (const pending of lost) pending.reject(new StoreUnavailableError(`the projector thread stopped (${reason}); restarting it from its checkpoints`));
      });
    });
  }

  private settle(message: Exclude<ProjectorResponse, { kind: 'ready' }>): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (message.kind === 'applied') {
      this.stored = message.positions;
      pending.resolve();
    } else if (message.kind === 'refused') pending.reject(new StoreUnavailableError(message.message));
    else pending.reject(Object.assign(new Error(message.message), { stack: message.stack }));
  }
}
