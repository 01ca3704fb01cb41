import { Command } from '@nestjs/cqrs';
import { ConcurrencyPolicy } from '../domain/concurrency';
import { ConversationState } from '../domain/conversation';

export class CreateConversationCommand extends Command<ConversationState> {
  constructor(
    readonly tenantId: string,
    readonly title: string | null,
    readonly metadata: Record<string, unknown>,
    readonly concurrency?: ConcurrencyPolicy,
  ) {
    super();
  }
}
