import { Command } from '@nestjs/cqrs';
import { ActionState } from '../domain/execution-state';

export class RespondToActionCommand extends Command<ActionState> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
    readonly actionId: string,
    /** The parsed request body; its shape depends on the action's kind, so it is checked here. */
    readonly body: Record<string, unknown>,
  ) {
    super();
  }
}
