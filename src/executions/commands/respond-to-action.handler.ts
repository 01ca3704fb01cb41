import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { nowIso } from '../../common/clock';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { decide, respondableAction } from '../domain/execution-decide';
import { ActionState } from '../domain/execution-state';
import { executionStream, loadExecution, toNewEvents } from '../execution-stream';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { ExecutionRunner } from '../runner/execution-runner';
import { actionResponse } from './action-response';
import { RespondToActionCommand } from './respond-to-action.command';

@CommandHandler(RespondToActionCommand)
export class RespondToActionHandler implements ICommandHandler<RespondToActionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
  ) {}

  /** §6: lookups and state first, then the body; the expected revision makes exactly one answer win. */
  async execute({ tenantId, executionId, actionId, body }: RespondToActionCommand): Promise<ActionState> {
    let loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    const response = actionResponse(respondableAction(loaded.state, actionId), body);
    for (;;) {
      const events = decide({ type: 'respond', actionId, response }, loaded.state);
      try {
        await this.store.append(
          executionStream(executionId),
          toNewEvents(executionId, events, { tenantId, occurredAt: nowIso() }),
          loaded.revision,
        );
        break;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        loaded = (await loadExecution(this.store, executionId, loaded))!;
      }
    }
    this.runner.session(executionId)?.deliverAnswer(actionId, response);
    const after = (await loadExecution(this.store, executionId))!.state;
    return after.actions.find((a) => a.id === actionId)!;
  }
}
