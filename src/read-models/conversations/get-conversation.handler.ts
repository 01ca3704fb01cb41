import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../common/errors/request-errors';
import { loadConversation } from '../../conversations/conversation-stream';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionsOfConversationQuery } from '../executions/executions-of-conversation.query';
import { ReadConsistency } from '../read-consistency';
import { ConversationsReadModel } from './conversations.read-model';
import { ConversationView, GetConversationQuery } from './get-conversation.query';

@QueryHandler(GetConversationQuery)
export class GetConversationHandler implements IQueryHandler<GetConversationQuery> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly queries: QueryBus,
    private readonly consistency: ReadConsistency,
    private readonly conversations: ConversationsReadModel,
  ) {}

  async execute({ tenantId, conversationId }: GetConversationQuery): Promise<ConversationView> {
    await this.consistency.caughtUp();
    // A conversation another process created may not be projected yet: its stream is the truth.
    const row = this.conversations.byId(conversationId) ?? (await this.fromStream(conversationId, tenantId));
    if (!row || row.tenantId !== tenantId) throw new NotFoundError(`conversation ${conversationId} not found`);
    const { id, title, metadata, createdAt, concurrency } = row;
    // Its executions are the executions read model's rows, not this one's.
    const executions = await this.queries.execute(new ExecutionsOfConversationQuery(conversationId));
    return { id, title, metadata, ...(concurrency !== undefined && { concurrency }), createdAt, executions };
  }

  private async fromStream(conversationId: string, tenantId: string) {
    const state = await loadConversation(this.store, conversationId, tenantId);
    return state && { ...state, tenantId };
  }
}
