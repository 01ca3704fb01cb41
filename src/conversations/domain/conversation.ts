import { DomainError } from '../../common/domain-error';
import { ConcurrencyPolicy } from './concurrency';

/** The conversation aggregate: created once, then only referenced by its executions. */
export type ConversationEvent = {
  type: 'conversation.created';
  /** `concurrency` only when set: the default of its executions (docs/api.md#concurrency). */
  data: { title: string | null; metadata: Record<string, unknown>; concurrency?: ConcurrencyPolicy };
};

export interface ConversationState {
  id: string;
  title: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  concurrency?: ConcurrencyPolicy;
}

export class ConversationExistsError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(readonly conversationId: string) {
    super(`conversation ${conversationId} already exists`);
    this.name = 'ConversationExistsError';
  }
}

export type ConversationCommand = { type: 'create'; title: string | null; metadata: Record<string, unknown>; concurrency?: ConcurrencyPolicy };

export function decideConversation(command: ConversationCommand, state: ConversationState | null): ConversationEvent[] {
  if (state) throw new ConversationExistsError(state.id);
  const data = { title: command.title, metadata: command.metadata, ...(command.concurrency !== undefined && { concurrency: command.concurrency }) };
  return [{ type: 'conversation.created', data }];
}

export function evolveConversation(state: ConversationState | null, event: ConversationEvent & { occurredAt: string }, id: string): ConversationState {
  switch (event.type) {
    case 'conversation.created':
      return {
        id,
        title: event.data.title,
        metadata: event.data.metadata,
        createdAt: event.occurredAt,
        ...(event.data.concurrency !== undefined && { concurrency: event.data.concurrency }),
      };
    default:
      return state!;
  }
}
