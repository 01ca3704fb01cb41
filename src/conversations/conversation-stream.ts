import { EventStore } from '../event-store/event-store';
import { ConversationEvent, ConversationState, evolveConversation } from './domain/conversation';

export const CONVERSATION_SCHEMA_VERSION = 1;
export const conversationStream = (id: string) => `conversation-${id}`;

/** Folds the conversation if it exists and belongs to the tenant; another tenant's reads as absent. */
export async function loadConversation(store: EventStore, id: string, tenantId: string): Promise<ConversationState | null> {
  const events = await store.readStream(conversationStream(id));
  if (events.length === 0 || events[0].metadata.tenantId !== tenantId) return null;
  return events.reduce<ConversationState | null>(
    (state, e) => evolveConversation(state, { type: e.type, data: e.data, occurredAt: e.occurredAt } as ConversationEvent & { occurredAt: string }, id),
    null,
  );
}
