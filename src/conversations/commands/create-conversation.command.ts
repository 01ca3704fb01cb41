import { Command } from '@nestjs/cqrs';
import { ConversationState } from '../domain/conversation';

export class CreateConversationCommand extends Command<ConversationState> {
  constructor(
    readonly tenantId: string,
    readonly title: string | null,
    readonly metadata: Record<string, unknown>,
  ) {
    super();
  }
}
