import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ExecutionSummary, ExecutionsReadModel } from './executions.read-model';
import { ExecutionsOfConversationQuery } from './executions-of-conversation.query';

@QueryHandler(ExecutionsOfConversationQuery)
export class ExecutionsOfConversationHandler implements IQueryHandler<ExecutionsOfConversationQuery> {
  constructor(private readonly executions: ExecutionsReadModel) {}

  async execute({ conversationId }: ExecutionsOfConversationQuery): Promise<ExecutionSummary[]> {
    return this.executions.ofConversation(conversationId);
  }
}
