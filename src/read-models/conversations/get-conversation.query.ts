import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { Query } from '@nestjs/cqrs';

export interface ConversationView {
  id: string;
  title: string | null;
  metadata: Record<string, unknown>;
  concurrency?: ConcurrencyPolicy;
  createdAt: string;
  executions: { id: string; status: string; provider: string; createdAt: string }[];
}

export class GetConversationQuery extends Query<ConversationView> {
  constructor(
    readonly tenantId: string,
    readonly conversationId: string,
  ) {
    super();
  }
}
