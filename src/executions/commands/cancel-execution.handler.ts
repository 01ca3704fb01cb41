import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore, StoreUnavailableError } from '../../event-store/event-store';
import { TERMINAL_EVENT_TYPES } from '../domain/execution-events';
import { requestCancel } from '../runner/cancel-requests';
import { InstanceLiveness } from '../runner/instance-liveness';
import { TracedCommand } from '../../observability/tracing';
import { decide } from '../domain/execution-decide';
import { ExecutionState } from '../domain/execution-state';
import { LoadedExecution, executionStream, loadExecution } from '../execution-stream';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { ExecutionRunner } from '../runner/execution-runner';
import { CancelExecutionCommand } from './cancel-execution.command';
import { decideAndAppend } from './decide-and-append';

/** How long a cancel waits for another instance to clean up and end the run (cleanups may take 10 s). */
const OWNER_CANCEL_WAIT_MS = 30_000;

@CommandHandler(CancelExecutionCommand)
export class CancelExecutionHandler implements ICommandHandler<CancelExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
    private readonly liveness: InstanceLiveness,
  ) {}

  /** docs/api.md#cancellation: one cancel operation per execution however many callers ask at once. */
  @TracedCommand()
  async execute({ tenantId, executionId, reason }: CancelExecutionCommand): Promise<ExecutionState> {
    const loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    // Cancelled already: answer with it; completed or failed: the decider refuses.
    if (decide({ type: 'cancel', reason, providerCleanupError: null }, loaded.state).length === 0) return loaded.state;
    const session = this.runner.session(executionId);
    if (session) await session.requestCancel(reason);
    // Another live instance runs it: ask it through the log, and wait for the run's end.
    else if (await this.liveness.isOtherAlive(loaded.owner)) await this.throughOwner(loaded, reason);
    // No one runs it (it ended meanwhile, or its instance is gone): the events alone decide.
    else await decideAndAppend(this.store, loaded, { type: 'cancel', reason, providerCleanupError: null });
    const after = (await loadExecution(this.store, executionId))!.state;
    // A run that ended on its own before the cancel was accepted answers as an ended run.
    decide({ type: 'cancel', reason, providerCleanupError: null }, after);
    return after;
  }

  private async throughOwner(loaded: LoadedExecution, reason: string | null): Promise<void> {
    await requestCancel(this.store, loaded.tenantId, loaded.state.id, reason);
    const signal = AbortSignal.timeout(OWNER_CANCEL_WAIT_MS);
    try {
      const stream = this.store.subscribeToStream(executionStream(loaded.state.id), { after: loaded.revision, signal });
      for await (const event of stream) if (TERMINAL_EVENT_TYPES.has(event.type)) return;
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    // The owner neither cancelled nor ended it in time: retry later, the request stays in the log.
    throw new StoreUnavailableError(`the instance running execution ${loaded.state.id} has not ended it yet`);
  }
}
