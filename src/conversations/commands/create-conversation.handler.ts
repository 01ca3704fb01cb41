import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { nowIso } from '../../common/clock';
import { newId } from '../../common/ids';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TracedCommand } from '../../observability/tracing';
import { CONVERSATION_SCHEMA_VERSION, conversationStream } from '../conversation-stream';
import { ConversationState, decideConversation, evolveConversation } from '../domain/conversation';
import { CreateConversationCommand } from './create-conversation.command';

@CommandHandler(CreateConversationCommand)
export class CreateConversationHandler implements ICommandHandler<CreateConversationCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @TracedCommand()
  async execute({ tenantId, title, metadata, concurrency }: CreateConversationCommand): Promise<ConversationState> {
    const id = newId();
    const occurredAt = nowIso();
    const events = decideConversation({ type: 'create', title, metadata, concurrency }, null);
    await this.store.append(
      conversationStream(id),
      events.map((e) => ({
        ...e,
        occurredAt,
        metadata: { tenantId, schemaVersion: CONVERSATION_SCHEMA_VERSION, correlationId: id, causationId: null },
      })),
      'no_stream',
    );
    return events.reduce<ConversationState | null>((s, e) => evolveConversation(s, { ...e, occurredAt }, id), null)!;
  }
}
