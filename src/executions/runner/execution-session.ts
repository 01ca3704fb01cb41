import { Logger } from '@nestjs/common';
import { EventStore, StoreUnavailableError } from '../../event-store/event-store';
import { newId } from '../../common/ids';
import { nowIso } from '../../common/clock';
import { currentTrace, inSpan } from '../../observability/tracing';
import { HistoryEntry, Provider, ProviderFailure, ProviderOutcome, ProviderRun } from '../../providers/provider';
import { ExecutionCommand } from '../domain/execution-decide';
import { ExecutionStateError } from '../domain/execution-errors';
import { isTerminal } from '../domain/execution-state';
import { LoadedExecution } from '../execution-stream';
import { artifactProblem } from './artifact-validation';
import { withStoreRetry } from '../commands/store-retry';
import { eventsOf, limitProblem } from './output-limits';
import { StreamWriter } from './stream-writer';

/** Queued output events per execution before the provider has to wait for the store. */
const STREAM_BACKLOG = 256;

/** Raised into the provider when the execution can no longer take its output. */
export class ExecutionStoppedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ExecutionStoppedError';
  }
}

/** A refusal because the execution has already ended: nothing to record, its state answers. */
const hasEnded = (error: unknown) => error instanceof ExecutionStateError && error.ended;

export interface SessionOptions {
  /** How long output waits for a store that refuses it before the run is given up (STORE_RETRY_MS). */
  storeRetryMs: number;
  /** The conversation's earlier turns, read when the provider starts. */
  history: () => Promise<HistoryEntry[]>;
  /** MAX_EVENTS_PER_EXECUTION: the stream's length, its end included (unbounded when absent). */
  maxEvents?: number;
  /** MAX_EVENT_BYTES: one event's data as JSON (unbounded when absent). */
  maxEventBytes?: number;
}

/**
 * One running execution: drives its provider, turns the provider's output into commands for the
 * stream writer, and owns the execution's one ending after a cancel or a store outage (rule 10,
 * rule 11): the provider is stopped, its cleanup runs once, and the recorded end waits for the
 * store as long as this process lives.
 */
export class ExecutionSession {
  private readonly writer: StreamWriter;
  private readonly abort = new AbortController();
  private readonly answers = new Map<string, (response: Record<string, unknown>) => void>();
  private cancelOperation: Promise<void> | null = null;
  private outageOperation: Promise<void> | null = null;
  private cleanup: Promise<string | null> | null = null;
  /** The execution's own trace (the session is made inside it), where its cleanup belongs whoever cancels. */
  private readonly inOwnTrace = currentTrace();
  private stopped = false;
  private halted = false;
  /** Events this run's stream holds or will hold once what was written is appended. */
  private events: number;
  /** Set once a bound was passed: the run's one recorded end is LIMIT_EXCEEDED. */
  private overLimit: Promise<void> | null = null;
  readonly finished: Promise<void>;

  constructor(
    store: EventStore,
    loaded: LoadedExecution,
    private readonly provider: Provider,
    private readonly options: SessionOptions,
    private readonly logger: Logger,
  ) {
    this.writer = new StreamWriter(store, loaded, options.storeRetryMs);
    this.events = loaded.revision + 1;
    // A cancel or an outage stops the provider (so drive() returns) before the cleanup and the
    // recorded end: the session stays registered until those settle, so a cancel arriving
    // meanwhile joins them instead of appending its own run.cancelled without the cleanup.
    this.finished = this.drive().then(async () => {
      await Promise.allSettled([this.cancelOperation, this.outageOperation, this.overLimit]);
    });
  }

  get id(): string {
    return this.writer.loaded.state.id;
  }

  /** Every caller shares the first caller's operation; resolves once the execution has ended. */
  cancel(reason: string | null): Promise<void> {
    this.cancelOperation ??= this.performCancel(reason);
    return this.cancelOperation;
  }

  /**
   * A cancel as a request sees it: resolves when the execution has ended, or rejects with the
   * store's refusal as soon as the store refuses its events. The operation itself goes on (the
   * cleanup runs once, run.cancelled waits for the store), and a retried request joins it.
   */
  async requestCancel(reason: string | null): Promise<void> {
    const operation = this.cancel(reason);
    const refusal = this.writer.nextRefusal();
    try {
      const refused = await Promise.race([operation.then(() => null), refusal.promise]);
      if (refused) throw refused;
    } finally {
      refusal.cancel();
    }
  }

  /**
   * Stops taking provider output without ending the execution (the process is going away): what
   * is being appended gets one more try, no retries, no cleanup; the next start ends the run.
   */
  async halt(): Promise<void> {
    this.halted = true;
    this.stop('runtime is shutting down');
    this.writer.halt();
    await this.writer.idle();
  }

  /** Hands an accepted answer (already stored) to the provider waiting on it. */
  deliverAnswer(actionId: string, response: Record<string, unknown>): void {
    this.answers.get(actionId)?.(response);
    this.answers.delete(actionId);
  }

  private async performCancel(reason: string | null): Promise<void> {
    this.stop('execution was cancelled');
    // Whatever was already in flight decides whether the run ended on its own first; while the
    // store refuses it, the cleanup need not wait for it.
    await this.writer.idleOrRefused();
    if (isTerminal(this.writer.loaded.state.status)) return;
    const providerCleanupError = await this.cleanupOnce();
    await this.writer.write({ type: 'cancel', reason, providerCleanupError }, { terminal: true }).catch((error) => {
      // Ended meanwhile by someone else (another instance, a restart): its state answers the caller.
      if (!hasEnded(error)) throw error;
    });
  }

  /** The store refused the run's events for longer than the bound: stop, clean up once, record the end. */
  private outage(error: StoreUnavailableError): Promise<void> {
    // A halted run is the next start's to end; the refusal may be the halt's own.
    if (this.halted) return Promise.resolve();
    this.outageOperation ??= (async () => {
      const seconds = Math.round(this.options.storeRetryMs / 100) / 10;
      this.logger.error(`execution ${this.id}: the store refused it for ${seconds} s; stopping it: ${error.message}`);
      this.stop('the event store is unavailable');
      await this.cleanupOnce();
      const failure = {
        code: 'RUNTIME_INTERRUPTED',
        message: `the store could not serve this execution for ${seconds} s (${error.message})`,
      };
      await this.writer.write({ type: 'fail', error: failure }, { terminal: true }).catch((e) => {
        if (hasEnded(e)) return;
        this.logger.warn(`execution ${this.id}: its end is left for the next start: ${(e as Error).message}`);
      });
    })();
    return this.outageOperation;
  }

  /** The provider's cleanup, run at most once whoever ends the run; resolves with its error message. */
  private cleanupOnce(): Promise<string | null> {
    this.cleanup ??= this.inOwnTrace(() =>
      inSpan('provider.cleanup', this.spanAttributes(), () => this.provider.cleanup({ executionId: this.id, config: this.writer.loaded.state.config })),
    ).then(
      () => null,
      (error) => (error as Error)?.message || String(error),
    );
    return this.cleanup;
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.writer.discardQueued(new ExecutionStoppedError(reason));
    this.abort.abort(new ExecutionStoppedError(reason));
    this.answers.clear();
  }

  /** Provider output goes out only while the execution takes it; after a cancel it is dropped. */
  private output(command: ExecutionCommand): Promise<void> {
    if (this.stopped || this.overLimit) return Promise.reject(new ExecutionStoppedError('execution is no longer running'));
    const problem = limitProblem(command, this.events, this.options);
    if (problem) return this.endOverLimit(problem);
    this.events += eventsOf(command);
    return this.writer.write(command);
  }

  /**
   * A run past a bound stops its provider and ends run.failed LIMIT_EXCEEDED once; what it
   * emitted before stays, in order (the failure queues behind it), and nothing after it.
   */
  private endOverLimit(message: string): Promise<void> {
    this.overLimit ??= (async () => {
      this.logger.warn(`execution ${this.id}: ${message}; ending it`);
      this.events += 1;
      await this.writer.write({ type: 'fail', error: { code: 'LIMIT_EXCEEDED', message } }).catch((error) => {
        if (error instanceof StoreUnavailableError) return this.outage(error);
        if (!hasEnded(error)) this.logger.error(`execution ${this.id}: could not record its end: ${(error as Error).message}`);
      });
      this.stop('execution exceeded a limit');
    })();
    return this.overLimit.then(() => {
      throw new ExecutionStoppedError('execution exceeded a limit');
    });
  }

  /**
   * Streamed output (deltas, provider events) need not wait for the disk: it is queued, and what
   * queues up while an append is in flight leaves as one append, so one commit carries many
   * deltas. The provider waits only when the queue is full, which bounds memory per execution.
   * A failure still reaches the provider: its next output or its completion is refused.
   */
  private stream(command: ExecutionCommand): Promise<void> {
    const appended = this.output(command);
    if (this.stopped || this.overLimit || this.writer.queued >= STREAM_BACKLOG) return appended;
    appended.catch((error) => {
      if (hasEnded(error)) this.stop('execution has ended');
      else if (error instanceof StoreUnavailableError) void this.outage(error);
    });
    return Promise.resolve();
  }

  private async drive(): Promise<void> {
    try {
      await this.output({ type: 'start' });
      // A cancel accepted while run.started was in flight has already begun the cleanup: starting
      // the provider now would leave whatever it opens behind.
      if (this.stopped) return;
      const outcome = await this.runProvider(this.lazyHistory());
      await this.output({ type: 'complete', text: outcome.text, usage: outcome.usage });
    } catch (error) {
      await this.failUnlessStopped(error);
    } finally {
      this.stopped = true;
    }
  }

  private async failUnlessStopped(error: unknown): Promise<void> {
    if (error instanceof StoreUnavailableError) return this.outage(error);
    if (this.stopped || error instanceof ExecutionStoppedError || isTerminal(this.writer.loaded.state.status)) return;
    const failure =
      error instanceof ProviderFailure
        ? { code: error.code, message: error.message }
        : { code: 'PROVIDER_ERROR', message: (error as Error)?.message || 'provider failed' };
    if (!(error instanceof ProviderFailure)) this.logger.warn(`execution ${this.id}: provider threw: ${failure.message}`);
    await this.output({ type: 'fail', error: failure }).catch((e) => {
      if (e instanceof StoreUnavailableError) return this.outage(e);
      if (!hasEnded(e) && !(e instanceof ExecutionStoppedError)) {
        this.logger.error(`execution ${this.id}: could not record failure: ${(e as Error).message}`);
      }
    });
  }

  /**
   * The history, read once when the provider asks for it. It comes from a read model: a file that
   * briefly cannot be written waits like output does.
   */
  private lazyHistory(): () => Promise<HistoryEntry[]> {
    let read: Promise<HistoryEntry[]> | null = null;
    return () => (read ??= withStoreRetry(this.options.history, { retryMs: this.options.storeRetryMs, signal: this.abort.signal }));
  }

  /**
   * The provider call, in a span whose children are the appends of its output. What it throws once
   * the session stopped it (a cancel, a limit, an outage, whose own spans tell) is no failure of its.
   */
  private runProvider(history: () => Promise<HistoryEntry[]>): Promise<ProviderOutcome> {
    const expected = () => (this.stopped ? 'STOPPED' : null);
    return inSpan(
      'provider.run',
      this.spanAttributes(),
      async (span) => {
        const outcome = await this.provider.run(this.providerRun(history));
        if (outcome.usage) {
          span.setAttribute('gen_ai.usage.input_tokens', outcome.usage.inputTokens);
          span.setAttribute('gen_ai.usage.output_tokens', outcome.usage.outputTokens);
        }
        return outcome;
      },
      { expected },
    );
  }

  private spanAttributes() {
    return { 'runledger.execution_id': this.id, 'runledger.provider': this.provider.manifest.id };
  }

  private providerRun(history: () => Promise<HistoryEntry[]>): ProviderRun {
    const { state } = this.writer.loaded;
    return {
      executionId: state.id,
      input: state.input,
      config: state.config,
      history,
      signal: this.abort.signal,
      emitText: (delta) => this.stream({ type: 'emit', output: [{ type: 'output.text.delta', data: { delta } }] }),
      emitEvent: (name, payload) =>
        this.stream({
          type: 'emit',
          output: [{ type: 'provider.event', data: { namespace: this.provider.eventNamespace ?? this.provider.manifest.id, name, payload } }],
        }),
      requireAction: (request) => this.requireAction(request),
      createArtifact: (candidate) => this.createArtifact(candidate),
    };
  }

  private async requireAction(request: Parameters<ProviderRun['requireAction']>[0]): Promise<Record<string, unknown>> {
    const actionId = newId();
    const answered = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.answers.set(actionId, resolve);
      this.abort.signal.addEventListener('abort', () => reject(this.abort.signal.reason), { once: true });
    });
    answered.catch(() => undefined);
    await this.output({ type: 'emit', output: [{ type: 'action.required', data: { actionId, ...request } }] });
    return answered;
  }

  private async createArtifact(candidate: Parameters<ProviderRun['createArtifact']>[0]): Promise<void> {
    const artifact = {
      id: newId(),
      executionId: this.id,
      name: candidate.name,
      mediaType: candidate.mediaType,
      createdAt: nowIso(),
      uri: candidate.uri ?? null,
      metadata: candidate.metadata ?? {},
    };
    const problem = artifactProblem(artifact);
    if (problem) {
      // The runtime, not the provider, decides that an invalid descriptor ends the run (docs/api.md#artifacts).
      await this.failUnlessStopped(new ProviderFailure('PROVIDER_ERROR', `invalid artifact descriptor: ${problem}`));
      this.stop('execution failed');
      throw new ExecutionStoppedError('execution failed');
    }
    await this.output({ type: 'emit', output: [{ type: 'artifact.created', data: { artifact: artifact as never } }] });
  }
}
