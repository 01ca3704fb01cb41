import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TracedCommand } from '../../observability/tracing';
import { decide } from '../domain/execution-decide';
import { ExecutionState } from '../domain/execution-state';
import { loadExecution } from '../execution-stream';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { ExecutionRunner } from '../runner/execution-runner';
import { CancelExecutionCommand } from './cancel-execution.command';
import { decideAndAppend } from './decide-and-append';

@CommandHandler(CancelExecutionCommand)
export class CancelExecutionHandler implements ICommandHandler<CancelExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
  ) {}

  /** §8 and rule 10: one cancel operation per execution however many callers ask at once. */
  @TracedCommand()
  async execute({ tenantId, executionId, reason }: CancelExecutionCommand): Promise<ExecutionState> {
    const loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    // Cancelled already: answer with it; completed or failed: the decider refuses.
    if (decide({ type: 'cancel', reason, providerCleanupError: null }, loaded.state).length === 0) return loaded.state;
    const session = this.runner.session(executionId);
    if (session) await session.requestCancel(reason);
    // No session here (it ended meanwhile): the events alone decide.
    else await decideAndAppend(this.store, loaded, { type: 'cancel', reason, providerCleanupError: null });
    const after = (await loadExecution(this.store, executionId))!.state;
    // A run that ended on its own before the cancel was accepted answers as an ended run.
    decide({ type: 'cancel', reason, providerCleanupError: null }, after);
    return after;
  }
}
