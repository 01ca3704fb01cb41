import { HistoryEntry } from '../../providers/provider';
import { ReadConsistency } from '../read-consistency';
import { ExecutionsReadModel } from './executions.read-model';

/**
 * docs/api.md#conversations: what a provider offering `conversation.history` receives: the latest `maxTurns` completed
 * executions of the conversation, oldest first, read with one indexed, limited query, so the
 * cost of a start does not grow with the conversation.
 */
export class ConversationHistory {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly executions: ExecutionsReadModel,
    private readonly maxTurns: number,
  ) {}

  async of(conversationId: string, executionId: string): Promise<HistoryEntry[]> {
    await this.consistency.caughtUp();
    return this.executions
      .history(conversationId, executionId, this.maxTurns)
      .map((turn) => ({ input: { text: turn.inputText }, outputText: turn.outputText }));
  }
}
