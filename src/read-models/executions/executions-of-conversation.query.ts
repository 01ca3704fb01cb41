import { Query } from '@nestjs/cqrs';
import { ExecutionSummary } from './executions.read-model';

/** The executions of one conversation, oldest first; the caller has checked the conversation is the tenant's. */
export class ExecutionsOfConversationQuery extends Query<ExecutionSummary[]> {
  constructor(readonly conversationId: string) {
    super();
  }
}
