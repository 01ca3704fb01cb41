import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../common/errors/request-errors';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ConversationsReadModel } from '../../projections/conversations/conversations.read-model';
import { ExecutionsReadModel } from '../../projections/executions/executions.read-model';
import { ReadConsistency } from '../../projections/read-consistency';
import { loadConversation } from '../conversation-stream';
import { ConversationView, GetConversationQuery } from './get-conversation.query';

@QueryHandler(GetConversationQuery)
export class GetConversationHandler implements IQueryHandler<GetConversationQuery> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly consistency: ReadConsistency,
    private readonly conversations: ConversationsReadModel,
    private readonly executions: ExecutionsReadModel,
  ) {}

  async execute({ tenantId, conversationId }: GetConversationQuery): Promise<ConversationView> {
    await this.consistency.caughtUp();
    // A conversation another process created may not be projected yet: its stream is the truth.
    const row = this.conversations.byId(conversationId) ?? (await this.fromStream(conversationId, tenantId));
    if (!row || row.tenantId !== tenantId) throw new NotFoundError(`conversation ${conversationId} not found`);
    const { id, title, metadata, createdAt } = row;
    return { id, title, metadata, createdAt, executions: this.executions.ofConversation(conversationId) };
  }

  private async fromStream(conversationId: string, tenantId: string) {
    const state = await loadConversation(this.store, conversationId, tenantId);
    return state && { ...state, tenantId };
  }
}
