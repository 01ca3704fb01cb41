import { DomainError } from '../../common/domain-error';

/** The conversation aggregate: created once, then only referenced by its executions. */
export type ConversationEvent = {
  type: 'conversation.created';
  data: { title: string | null; metadata: Record<string, unknown> };
};

export interface ConversationState {
  id: string;
  title: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export class ConversationExistsError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(readonly conversationId: string) {
    super(`conversation ${conversationId} already exists`);
    this.name = 'ConversationExistsError';
  }
}

export type ConversationCommand = { type: 'create'; title: string | null; metadata: Record<string, unknown> };

export function decideConversation(command: ConversationCommand, state: ConversationState | null): ConversationEvent[] {
  if (state) throw new ConversationExistsError(state.id);
  return [{ type: 'conversation.created', data: { title: command.title, metadata: command.metadata } }];
}

export function evolveConversation(state: ConversationState | null, event: ConversationEvent & { occurredAt: string }, id: string): ConversationState {
  switch (event.type) {
    case 'conversation.created':
      return { id, title: event.data.title, metadata: event.data.metadata, createdAt: event.occurredAt };
    default:
      return state!;
  }
}
