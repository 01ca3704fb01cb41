import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TracedCommand } from '../../observability/tracing';
import { respondableAction } from '../domain/execution-decide';
import { ActionState } from '../domain/execution-state';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { ExecutionRunner } from '../runner/execution-runner';
import { actionResponse } from './action-response';
import { decideAndAppend } from './decide-and-append';
import { RespondToActionCommand } from './respond-to-action.command';

@CommandHandler(RespondToActionCommand)
export class RespondToActionHandler implements ICommandHandler<RespondToActionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
  ) {}

  /** §6: lookups and state first, then the body; the expected revision makes exactly one answer win. */
  @TracedCommand()
  async execute({ tenantId, executionId, actionId, body }: RespondToActionCommand): Promise<ActionState> {
    const loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    const response = await actionResponse(respondableAction(loaded.state, actionId), body);
    const after = await decideAndAppend(this.store, loaded, { type: 'respond', actionId, response });
    this.runner.session(executionId)?.deliverAnswer(actionId, response);
    return after.state.actions.find((a) => a.id === actionId)!;
  }
}
