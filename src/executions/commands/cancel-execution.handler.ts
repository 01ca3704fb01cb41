import { BeforeApplicationShutdown, Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore, StoreUnavailableError, WrongExpectedRevisionError } from '../../event-store/event-store';
import { TracedCommand } from '../../observability/tracing';
import { appendCancelRequest } from '../cancel-requests';
import { decide } from '../domain/execution-decide';
import { isTerminalEvent } from '../domain/execution-events';
import { ExecutionState } from '../domain/execution-state';
import { LoadedExecution, executionStream, loadExecution } from '../execution-stream';
import { InstanceLiveness } from '../instance-liveness';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { CancelExecutionCommand } from './cancel-execution.command';
import { endExecution } from './end-execution';
import { withStoreRetry } from './store-retry';

/** How long a cancel waits for the instance running the run to clean up and end it (cleanups may take 10 s). */
const OWNER_CANCEL_WAIT_MS = 30_000;

/** A request the store refused, still being retried in the background; a cancel meanwhile joins it. */
interface PendingRequest {
  stored: Promise<void>;
  /** The store's last refusal while it keeps refusing: a joining cancel answers 503 with it at once. */
  refusing: StoreUnavailableError | null;
}

/**
 * docs/api.md#cancellation: a cancel is a request in the log; whichever instance runs the
 * execution (this one or another) follows the log, runs the provider's cleanup once and appends
 * `run.cancelled`, and this handler answers once the run has ended. A run nobody runs (it ended,
 * or its instance is gone) is ended by the events alone.
 */
@CommandHandler(CancelExecutionCommand)
export class CancelExecutionHandler implements ICommandHandler<CancelExecutionCommand>, BeforeApplicationShutdown {
  private readonly pending = new Map<string, PendingRequest>();
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly liveness: InstanceLiveness,
    @Inject(CONFIG) private readonly config: Pick<Config, 'storeRetryMs'>,
  ) {}

  @TracedCommand()
  async execute({ tenantId, executionId, reason }: CancelExecutionCommand): Promise<ExecutionState> {
    const loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    // Cancelled already: answer with it; completed or failed: the decider refuses.
    if (decide({ type: 'cancel', reason, providerCleanupError: null }, loaded.state).length === 0) return loaded.state;
    if (await this.liveness.isRunning(loaded.owner)) await this.throughOwner(loaded, reason);
    else await endExecution(this.store, loaded, { type: 'cancel', reason, providerCleanupError: null });
    const after = (await loadExecution(this.store, executionId))!.state;
    // A run that ended on its own before the cancel was accepted answers as an ended run.
    decide({ type: 'cancel', reason, providerCleanupError: null }, after);
    return after;
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async throughOwner(loaded: LoadedExecution, reason: string | null): Promise<void> {
    await this.request(loaded, reason);
    const signal = AbortSignal.any([AbortSignal.timeout(OWNER_CANCEL_WAIT_MS), this.stopping.signal]);
    try {
      const stream = this.store.subscribeToStream(executionStream(loaded.state.id), { after: loaded.revision, signal });
      for await (const event of stream) if (isTerminalEvent(event.type)) return;
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    // The owner neither cancelled nor ended it in time: retry later, the request stays in the log.
    throw new StoreUnavailableError(`the instance running execution ${loaded.state.id} has not ended it yet`);
  }

  /**
   * Puts the cancel request in the log. A store that refuses it answers 503 at once while the
   * request is retried in the background (as the run's own output is, for STORE_RETRY_MS), so the
   * first cancel still decides the reason once the store is back; cancels meanwhile join it.
   */
  private async request(loaded: LoadedExecution, reason: string | null): Promise<void> {
    const { id } = loaded.state;
    const joined = this.pending.get(id);
    if (joined) {
      if (joined.refusing) throw joined.refusing;
      return joined.stored;
    }
    const append = () =>
      appendCancelRequest(this.store, loaded.tenantId, id, { reason, owner: loaded.owner }).catch((error) => {
        // An earlier request (or our own whose acknowledgement was lost) is there: wait like it.
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      });
    try {
      await append();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      const entry: PendingRequest = { stored: Promise.resolve(), refusing: error };
      entry.stored = withStoreRetry(append, {
        retryMs: this.config.storeRetryMs,
        signal: this.stopping.signal,
        onUnavailable: (refusal) => (entry.refusing = refusal),
      }).finally(() => this.pending.delete(id));
      entry.stored.catch(() => undefined);
      this.pending.set(id, entry);
      throw error;
    }
  }
}
