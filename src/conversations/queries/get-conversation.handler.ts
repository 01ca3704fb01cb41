import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionIndex } from '../../projections/execution-index/execution-index';
import { loadConversation } from '../conversation-stream';
import { ConversationView, GetConversationQuery } from './get-conversation.query';

@QueryHandler(GetConversationQuery)
export class GetConversationHandler implements IQueryHandler<GetConversationQuery> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly index: ExecutionIndex,
  ) {}

  async execute({ tenantId, conversationId }: GetConversationQuery): Promise<ConversationView> {
    const conversation = await loadConversation(this.store, conversationId, tenantId);
    if (!conversation) throw new ApiError('NOT_FOUND', `conversation ${conversationId} not found`);
    const executions = await this.index.ofConversation(conversationId);
    return {
      ...conversation,
      executions: executions.map((e) => ({ id: e.id, status: e.status, provider: e.provider, createdAt: e.createdAt })),
    };
  }
}
