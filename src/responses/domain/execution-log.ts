/**
 * The execution events this binding reads, as docs/api.md#events defines them: a structural copy of
 * the few fields the fold needs, so this domain depends on the log's documented shape, not on
 * another feature's code.
 */
export type LoggedEvent = { sequence: number; occurredAt: string } & (
  | {
      type: 'run.queued';
      data: { conversationId: string; provider: string; input: { text: string }; config: Record<string, unknown>; responses?: Record<string, unknown> };
    }
  | { type: 'run.started'; data: unknown }
  | { type: 'output.text.delta'; data: { delta: string } }
  | { type: 'output.text.done'; data: { text: string } }
  | { type: 'action.required'; data: { actionId: string; tool: { callId: string; name: string; arguments: unknown } | null } }
  | { type: 'action.responded'; data: { actionId: string; response: Record<string, unknown> } }
  | { type: 'artifact.created'; data: unknown }
  | { type: 'provider.event'; data: { namespace: string; name: string; payload: unknown } }
  | { type: 'run.completed'; data: { usage: { inputTokens: number; outputTokens: number } | null } }
  | { type: 'run.failed'; data: { error: { code: string; message: string } } }
  | { type: 'run.cancelled'; data: unknown }
);

export type QueuedData = Extract<LoggedEvent, { type: 'run.queued' }>['data'];
