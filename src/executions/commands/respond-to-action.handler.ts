import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { PayloadTooLargeError } from '../../common/errors/request-errors';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TracedCommand } from '../../observability/tracing';
import { respondableAction } from '../domain/execution-decide';
import { ActionState } from '../domain/execution-state';
import { loadOwnedExecution } from '../queries/load-owned-execution';
import { actionResponse } from './action-response';
import { decideAndAppend } from './decide-and-append';
import { RespondToActionCommand } from './respond-to-action.command';

@CommandHandler(RespondToActionCommand)
export class RespondToActionHandler implements ICommandHandler<RespondToActionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'limits'>,
  ) {}

  /**
   * docs/api.md#actions: lookups and state first, then the body; the expected revision makes exactly one answer win,
   * and the instance running the execution hands the stored answer to its provider from the log.
   */
  @TracedCommand()
  async execute({ tenantId, executionId, actionId, body }: RespondToActionCommand): Promise<ActionState> {
    const loaded = await loadOwnedExecution(this.store, executionId, tenantId);
    const response = await actionResponse(respondableAction(loaded.state, actionId), body);
    // Only where BODY_LIMIT_BYTES was raised above MAX_EVENT_BYTES can an answer be this large.
    const bytes = Buffer.byteLength(JSON.stringify(response), 'utf8');
    if (bytes > this.config.limits.maxEventBytes) {
      throw new PayloadTooLargeError(`the answer is ${bytes} bytes; one event may hold at most ${this.config.limits.maxEventBytes} (MAX_EVENT_BYTES)`);
    }
    const after = await decideAndAppend(this.store, loaded, { type: 'respond', actionId, response });
    return after.state.actions.find((a) => a.id === actionId)!;
  }
}
