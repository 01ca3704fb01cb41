import type { LogLines } from '../../observability/request-context';
import { EventStore, StoreUnavailableError } from '../../event-store/event-store';
import { HistoryEntry, Provider, ProviderFailure } from '../../providers/provider';
import { hasEnded } from '../commands/end-execution';
import { ExecutionCommand } from '../domain/execution-decide';
import { runDeadline } from '../domain/execution-deadlines';
import { isTerminal } from '../domain/execution-state';
import { LoadedExecution } from '../execution-stream';
import { DeadlineTimers } from './deadline-timer';
import { settlesWithin } from '../../common/settles-within';
import { backpressured } from './output-backpressure';
import { eventsOf, limitProblem } from './output-limits';
import { ProviderOutlet } from './provider-callbacks';
import { ProviderCall } from './provider-call';
import { StreamWriter } from './stream-writer';
import { PendingAnswers } from './pending-answers';
import { UsageMeter } from './usage-meter';
import { EndCause, ExecutionStoppedError, STOPPING, StoppingCause, endKey, ignoreEnded, stoppedEnd } from './end-cause';

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
 * stream writer, and ends the run through one path, `end(cause)`, whatever ends it
 * (docs/api.md#cancellation, docs/operations.md#when-the-store-fails): the provider is stopped, its
 * cleanup runs at most once, `decide` picks the terminal event, and the writer appends it behind
 * the output already queued. A cancel or an outage waits for the store as long as this process lives.
 */
export class ExecutionSession {
  private readonly writer: StreamWriter;
  private readonly abort = new AbortController();
  private readonly answers = new PendingAnswers();
  /**
   * The endings under way, one per kind (one per action for expiries): a second cancel joins the
   * first, a later cause finds the run ended.
   */
  private readonly endings = new Map<string, Promise<void>>();
  /** The run's deadline and its actions' expiries; cleared once the run stops or finishes. */
  private readonly deadlines = new DeadlineTimers();
  /** What the provider has reported spending; every end records it. */
  private readonly meter: UsageMeter;
  /** Made here, inside the execution's own trace, where its cleanup belongs whoever cancels. */
  private readonly provider: ProviderCall;
  private stopped = false;
  private halted = false;
  /** Events this run's stream holds or will hold once what was written is appended. */
  private events: number;
  readonly finished: Promise<void>;

  constructor(
    store: EventStore,
    loaded: LoadedExecution,
    provider: Provider,
    private readonly options: SessionOptions,
    private readonly logger: LogLines,
  ) {
    this.writer = new StreamWriter(store, loaded, options.storeRetryMs);
    this.meter = new UsageMeter(loaded.state);
    this.provider = new ProviderCall(provider, () => this.writer.loaded.state, this.abort.signal, options);
    this.events = loaded.revision + 1;
    // A cancel or an outage stops the provider (so drive() returns) before the cleanup and the
    // recorded end: the session stays registered until those settle, so a cancel arriving
    // meanwhile joins them instead of appending its own run.cancelled without the cleanup.
    this.finished = this.drive().then(async () => {
      await Promise.allSettled(this.endings.values());
      this.deadlines.clear();
    });
    const deadline = runDeadline(loaded.state);
    if (deadline !== null) this.deadlines.at(deadline, (now) => this.endOnTimer({ kind: 'deadline', now }));
  }

  get id(): string {
    return this.writer.loaded.state.id;
  }

  /** Every caller shares the first caller's operation; resolves once the execution has ended. */
  cancel(reason: string | null): Promise<void> {
    return this.end({ kind: 'cancelled', reason });
  }

  /** Stops taking provider output without ending the execution (the process is going away). */
  halt(): Promise<void> {
    return this.end({ kind: 'halted' });
  }

  /** Hands an accepted answer (already stored) to the provider waiting on it. */
  deliverAnswer(actionId: string, response: Record<string, unknown>): void {
    this.answers.deliver(actionId, response);
  }

  /** The one way a run ends; each kind of cause runs once, and `decide` lets only the first end stand. */
  private end(cause: EndCause): Promise<void> {
    const key = endKey(cause);
    let ending = this.endings.get(key);
    if (!ending) {
      ending = this.perform(cause);
      this.endings.set(key, ending);
    }
    return ending;
  }

  private async perform(cause: EndCause): Promise<void> {
    switch (cause.kind) {
      case 'completed': {
        const usage = this.meter.final(cause.outcome.usage);
        // A total given only at the end is held to the budget too: passing it fails the run.
        const exceeded = this.meter.exceeded(usage);
        if (exceeded) return this.record(this.output({ type: 'fail', error: exceeded, usage }));
        return this.record(this.output({ type: 'complete', text: cause.outcome.text, usage }));
      }
      case 'failed':
        if (this.stopped || isTerminal(this.writer.loaded.state.status)) return;
        return this.record(this.output({ type: 'fail', error: cause.error, usage: this.meter.usage }));
      case 'limit': {
        // What the run emitted before stays, in order (the failure queues behind it), and nothing after it.
        this.logger.warn(`execution ${this.id}: ${cause.message}; ending it`);
        this.events += 1;
        await this.record(this.writer.write({ type: 'fail', error: { code: 'LIMIT_EXCEEDED', message: cause.message }, usage: this.meter.usage }));
        return this.stop('execution exceeded a limit');
      }
      case 'cancelled':
      case 'deadline':
      case 'budget':
        return this.stopThenRecord(cause);
      case 'expired': {
        if (this.stopped) return;
        // An answer may be racing the expiry, and only the log can tell which came first: the
        // end is appended before the provider is stopped, and `decide` appends nothing when the
        // answer won (docs/api.md#deadlines).
        await this.writer.write({ type: 'expire', now: cause.now, usage: this.meter.usage }, { terminal: true }).catch(ignoreEnded);
        if (this.writer.loaded.state.error?.code !== 'ACTION_EXPIRED') return;
        this.stop('an action expired');
        const providerCleanupError = await this.provider.cleanupOnce();
        if (providerCleanupError) this.logger.warn(`execution ${this.id}: its cleanup after an action expired failed: ${providerCleanupError}`);
        return;
      }
      case 'outage': {
        // A halted run is the next start's to end; the refusal may be the halt's own.
        if (this.halted) return;
        const seconds = Math.round(this.options.storeRetryMs / 100) / 10;
        this.logger.error(`execution ${this.id}: the store refused it for ${seconds} s; stopping it: ${cause.error.message}`);
        this.stop('the event store is unavailable');
        await this.provider.cleanupOnce();
        const error = { code: 'RUNTIME_INTERRUPTED', message: `the store could not serve this execution for ${seconds} s (${cause.error.message})` };
        return this.writer.write({ type: 'fail', error, usage: this.meter.usage }, { terminal: true }).catch((e) => {
          if (!hasEnded(e)) this.logger.warn(`execution ${this.id}: its end is left for the next start: ${(e as Error).message}`);
        });
      }
      case 'halted':
        this.halted = true;
        this.stop('runtime is shutting down');
        // What is being appended gets one more try, no retries, no cleanup; an append the store
        // never answers must not hold the shutdown past its deadline (docs/operations.md#stopping).
        this.writer.halt();
        if (!(await settlesWithin(this.writer.idle(), HALT_WAIT_MS))) {
          this.logger.warn(`execution ${this.id}: its last append was still in flight after ${HALT_WAIT_MS} ms; its end is left for the next start`);
        }
        return;
    }
  }

  /** A timer has no caller to tell: what its ending could not record (the process halting under it) is logged. */
  private endOnTimer(cause: Extract<EndCause, { kind: 'deadline' | 'expired' }>): void {
    this.end(cause).catch((error) => this.logger.warn(`execution ${this.id}: its ${cause.kind} end is left for the next start: ${(error as Error).message}`));
  }

  /**
   * Stops the provider; whatever was already in flight decides whether the run ended on its own
   * first (while the store refuses it, the cleanup need not wait for it); then the cleanup runs
   * once and the run's end is recorded. Ended meanwhile by someone else (another instance, a
   * restart): its state answers the caller.
   */
  private async stopThenRecord(cause: StoppingCause): Promise<void> {
    const { reason, cleanupFailedAfter } = STOPPING[cause.kind];
    this.stop(reason);
    await this.writer.idleOrRefused();
    if (isTerminal(this.writer.loaded.state.status)) return;
    const providerCleanupError = await this.provider.cleanupOnce();
    if (providerCleanupError && cleanupFailedAfter)
      this.logger.warn(`execution ${this.id}: its cleanup after ${cleanupFailedAfter} failed: ${providerCleanupError}`);
    return this.writer.write(stoppedEnd(cause, this.meter.usage, providerCleanupError), { terminal: true }).catch(ignoreEnded);
  }

  /** Settles an ending's append: a refusing store ends the run as an outage, an ended run needs nothing. */
  private async record(appended: Promise<void>): Promise<void> {
    try {
      await appended;
    } catch (error) {
      if (error instanceof StoreUnavailableError) return this.end({ kind: 'outage', error });
      if (hasEnded(error) || error instanceof ExecutionStoppedError) return;
      this.logger.error(`execution ${this.id}: could not record its end: ${(error as Error).message}`);
    }
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.deadlines.clear();
    this.writer.discardQueued(new ExecutionStoppedError(reason));
    const stopped = new ExecutionStoppedError(reason);
    this.abort.abort(stopped);
    this.answers.stop(stopped);
  }

  private get overLimit(): boolean {
    return this.endings.has('limit');
  }

  /** Provider output goes out only while the execution takes it; after a cancel it is dropped. */
  private output(command: ExecutionCommand): Promise<void> {
    if (this.stopped || this.overLimit) return Promise.reject(new ExecutionStoppedError('execution is no longer running'));
    const problem = limitProblem(command, this.events, this.options);
    if (problem) {
      return this.end({ kind: 'limit', message: problem }).then(() => {
        throw new ExecutionStoppedError('execution exceeded a limit');
      });
    }
    this.events += eventsOf(command);
    return this.writer.write(command);
  }

  private stream(command: ExecutionCommand): Promise<void> {
    const appended = this.output(command);
    if (this.stopped || this.overLimit) return appended;
    return backpressured(appended, this.writer.queued, (error) => {
      if (hasEnded(error)) this.stop('execution has ended');
      else if (error instanceof StoreUnavailableError) void this.end({ kind: 'outage', error });
    });
  }

  private async drive(): Promise<void> {
    try {
      // An adopted queued run arrives started: its run.started picked it among the adopters.
      if (this.writer.loaded.state.status === 'queued') {
        const model = this.provider.model();
        await this.output({ type: 'start', ...(model !== undefined && { model }) });
      }
      // A cancel accepted while run.started was in flight has already begun the cleanup: starting
      // the provider now would leave whatever it opens behind.
      if (this.stopped) return;
      const outcome = await this.provider.run(this.outlet(), () => this.stopped);
      await this.end({ kind: 'completed', outcome });
    } catch (error) {
      await this.providerEnded(error);
    } finally {
      this.stopped = true;
    }
  }

  /** Why the provider (or its start) threw, as the run's end. */
  private providerEnded(error: unknown): Promise<void> {
    if (error instanceof StoreUnavailableError) return this.end({ kind: 'outage', error });
    if (this.stopped || error instanceof ExecutionStoppedError || isTerminal(this.writer.loaded.state.status)) return Promise.resolve();
    if (error instanceof ProviderFailure) return this.end({ kind: 'failed', error: { code: error.code, message: error.message } });
    const message = (error as Error)?.message || 'provider failed';
    this.logger.warn(`execution ${this.id}: provider threw: ${message}`);
    return this.end({ kind: 'failed', error: { code: 'PROVIDER_ERROR', message } });
  }

  /** What the provider's callbacks turn into (provider-callbacks.ts). */
  private outlet(): ProviderOutlet {
    return {
      stream: (command) => this.stream(command),
      output: (command) => this.output(command),
      answer: (actionId, expiresAt) => this.answer(actionId, expiresAt),
      usage: (report) => this.spend(report),
      fail: async (error) => {
        await this.end({ kind: 'failed', error });
        this.stop('execution failed');
        throw new ExecutionStoppedError('execution failed');
      },
    };
  }

  /** Counts a usage report; past the budget the run ends BUDGET_EXCEEDED and the provider is told to stop. */
  private async spend(report: { inputTokens: number; outputTokens: number }): Promise<void> {
    if (this.stopped) throw new ExecutionStoppedError('execution is no longer running');
    const exceeded = this.meter.add(report);
    if (!exceeded) return;
    await this.end({ kind: 'budget', error: exceeded });
    throw new ExecutionStoppedError('execution passed its budget');
  }

  private answer(actionId: string, expiresAt: string | null): Promise<Record<string, unknown>> {
    if (expiresAt !== null) this.deadlines.at(expiresAt, (now) => this.endOnTimer({ kind: 'expired', actionId, now }));
    return this.answers.wait(actionId);
  }
}

/** How long a halt waits for the append in flight (the shutdown deadline is 8 s). */
const HALT_WAIT_MS = 2000;
