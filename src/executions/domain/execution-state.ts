import {
  ActionKind,
  ErrorInfo,
  ExecutionInput,
  RecordedExecutionEvent,
  TERMINAL_STATUSES,
  TerminalEventType,
  TerminalStatus,
  ToolCall,
  Usage,
} from './execution-events';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';

export type ExecutionStatus = 'queued' | 'running' | 'requires_action' | TerminalStatus;

export interface ActionState {
  id: string;
  kind: ActionKind;
  prompt: string;
  inputSchema: object | null;
  tool: ToolCall | null;
  /** When it ends the run unanswered (docs/api.md#deadlines); absent without a timeout. */
  expiresAt?: string;
  status: 'pending' | 'resolved' | 'cancelled';
  response: Record<string, unknown> | null;
  createdAt: string;
  resolvedAt: string | null;
}

export interface ExecutionState {
  id: string;
  conversationId: string;
  provider: string;
  status: ExecutionStatus;
  input: ExecutionInput;
  requiredCapabilities: string[];
  config: Record<string, unknown>;
  idempotencyKey: string | null;
  timeoutMs?: number;
  actionTimeoutMs?: number;
  concurrency?: ConcurrencyPolicy;
  budget?: { maxTotalTokens: number };
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
  outputText: string | null;
  error: ErrorInfo | null;
  cancellation: { reason: string | null; providerCleanupError: string | null } | null;
  /** What the terminal event recorded as spent (docs/api.md#usage-and-budgets); null before the end or when none was reported. */
  usage: Usage | null;
  actions: ActionState[];
  /** Artifacts themselves live in their read model: deciding never needs them. */
  artifactCount: number;
  lastSequence: number;
}

export const isTerminal = (status: string): status is TerminalStatus => TERMINAL_STATUSES.has(status);

export const pendingActions = (state: ExecutionState): ActionState[] => state.actions.filter((action) => action.status === 'pending');

/**
 * How one event changes an execution's actions (docs/api.md#actions); the same array when it
 * leaves them as they were. `evolve` folds them with it, and so does the actions read model.
 */
export function evolveActions(actions: ActionState[], event: RecordedExecutionEvent): ActionState[] {
  switch (event.type) {
    case 'action.required':
      return [
        ...actions,
        {
          id: event.data.actionId,
          kind: event.data.kind,
          prompt: event.data.prompt,
          inputSchema: event.data.inputSchema,
          tool: event.data.tool,
          ...(event.data.expiresAt !== undefined && { expiresAt: event.data.expiresAt }),
          status: 'pending',
          response: null,
          createdAt: event.occurredAt,
          resolvedAt: null,
        },
      ];
    case 'action.responded':
      return actions.map((a) =>
        a.id === event.data.actionId ? { ...a, status: 'resolved' as const, response: event.data.response, resolvedAt: event.occurredAt } : a,
      );
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
      // Unanswered actions die with their execution (docs/api.md#actions).
      return actions.map((a) => (a.status === 'pending' ? { ...a, status: 'cancelled', resolvedAt: event.occurredAt } : a));
    default:
      return actions;
  }
}

function end(state: ExecutionState, status: TerminalStatus, event: Extract<RecordedExecutionEvent, { type: TerminalEventType }>): ExecutionState {
  // Events recorded before usage was on every terminal event have none: null (docs/api.md#usage-and-budgets).
  return { ...state, status, endedAt: event.occurredAt, usage: event.data.usage ?? null, actions: evolveActions(state.actions, event) };
}

/** Folds one recorded event into the state; `null` before `run.queued`. Pure. */
export function evolve(state: ExecutionState | null, event: RecordedExecutionEvent, executionId: string): ExecutionState {
  if (event.type === 'run.queued') {
    return {
      id: executionId,
      ...event.data,
      status: 'queued',
      createdAt: event.occurredAt,
      startedAt: null,
      endedAt: null,
      outputText: null,
      error: null,
      cancellation: null,
      usage: null,
      actions: [],
      artifactCount: 0,
      lastSequence: event.sequence,
    };
  }
  if (!state) throw new Error(`execution ${executionId}: ${event.type} before run.queued`);
  const next = { ...state, lastSequence: event.sequence };
  switch (event.type) {
    case 'run.started':
      return { ...next, status: 'running', startedAt: event.occurredAt };
    case 'output.text.delta':
    case 'provider.event':
      return next;
    case 'output.text.done':
      return { ...next, outputText: event.data.text };
    case 'action.required':
      return { ...next, status: 'requires_action', actions: evolveActions(state.actions, event) };
    case 'action.responded': {
      const actions = evolveActions(state.actions, event);
      const stillWaiting = actions.some((a) => a.status === 'pending');
      return { ...next, actions, status: stillWaiting ? 'requires_action' : 'running' };
    }
    case 'artifact.created':
      return { ...next, artifactCount: state.artifactCount + 1 };
    case 'run.completed':
      return end(next, 'completed', event);
    case 'run.failed':
      return { ...end(next, 'failed', event), error: event.data.error };
    case 'run.cancelled':
      return { ...end(next, 'cancelled', event), cancellation: { reason: event.data.reason, providerCleanupError: event.data.providerCleanupError } };
  }
}

export function fold(events: RecordedExecutionEvent[], executionId: string): ExecutionState | null {
  return events.reduce<ExecutionState | null>((state, event) => evolve(state, event, executionId), null);
}
