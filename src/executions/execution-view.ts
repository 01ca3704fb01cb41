import { ActionState, ExecutionState, pendingActions } from './domain/execution-state';

/** The Execution resource of docs/api.md#executions, in its documented key order. */
export function executionView(state: ExecutionState) {
  return {
    id: state.id,
    conversationId: state.conversationId,
    provider: state.provider,
    status: state.status,
    input: state.input,
    requiredCapabilities: state.requiredCapabilities,
    config: state.config,
    idempotencyKey: state.idempotencyKey,
    // Shown only when set, as run.queued records them (docs/api.md#deadlines).
    ...(state.timeoutMs !== undefined && { timeoutMs: state.timeoutMs }),
    ...(state.actionTimeoutMs !== undefined && { actionTimeoutMs: state.actionTimeoutMs }),
    ...(state.concurrency !== undefined && { concurrency: state.concurrency }),
    ...(state.budget !== undefined && { budget: state.budget }),
    createdAt: state.createdAt,
    startedAt: state.startedAt,
    endedAt: state.endedAt,
    outputText: state.outputText,
    error: state.error,
    cancellation: state.cancellation,
    pendingActionIds: pendingActions(state).map((a) => a.id),
    artifactCount: state.artifactCount,
    lastSequence: state.lastSequence,
  };
}

export type ExecutionView = ReturnType<typeof executionView>;

/** The Action resource of docs/api.md#actions. */
export function actionView(executionId: string, action: ActionState) {
  return {
    id: action.id,
    executionId,
    kind: action.kind,
    prompt: action.prompt,
    inputSchema: action.inputSchema,
    tool: action.tool,
    status: action.status,
    response: action.response,
    createdAt: action.createdAt,
    resolvedAt: action.resolvedAt,
  };
}

export type ActionView = ReturnType<typeof actionView>;
