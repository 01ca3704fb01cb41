import { ConcurrencyPolicy } from '../../common/concurrency-policy';

/** The execution's events as docs/api.md#events names them: `{type, data}` unions. */
export interface ExecutionInput {
  text: string;
}

export type ActionKind = 'approval' | 'input';

export interface ToolCall {
  callId: string;
  name: string;
  arguments: unknown;
}

export interface ArtifactDescriptor {
  id: string;
  executionId: string;
  name: string;
  mediaType: string;
  createdAt: string;
  uri: string | null;
  metadata: Record<string, unknown>;
}

/** Tokens spent up to a run's end, as every terminal event records them; null when the provider reported none. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ErrorInfo {
  code: string;
  message: string;
}

export type ExecutionEvent =
  | {
      type: 'run.queued';
      data: {
        conversationId: string;
        provider: string;
        input: ExecutionInput;
        requiredCapabilities: string[];
        config: Record<string, unknown>;
        idempotencyKey: string | null;
        /** Present only when the run has one (docs/api.md#deadlines): ms from run.queued until it fails DEADLINE_EXCEEDED. */
        timeoutMs?: number;
        /** Present only when set: how long each of its actions may stay unanswered, unless the action says otherwise. */
        actionTimeoutMs?: number;
        /** Present only when the request or its conversation set it (docs/api.md#concurrency). */
        concurrency?: ConcurrencyPolicy;
        /** Present only when started through /v1/responses (docs/responses-api.md#storage): that API's settings. */
        responses?: Record<string, unknown>;
        /** Present only when set (docs/api.md#usage-and-budgets): the run fails BUDGET_EXCEEDED once it spends more. */
        budget?: { maxTotalTokens: number };
      };
    }
  /** `model`: present only when the provider names one for the run's config (docs/api.md#usage-and-budgets). */
  | { type: 'run.started'; data: { provider: string; model?: string } }
  | { type: 'output.text.delta'; data: { delta: string } }
  | { type: 'output.text.done'; data: { text: string } }
  | {
      type: 'action.required';
      data: {
        actionId: string;
        kind: ActionKind;
        prompt: string;
        inputSchema: object | null;
        tool: ToolCall | null;
        /** Present only when the action has a timeout (docs/api.md#deadlines). */
        expiresAt?: string;
      };
    }
  | { type: 'action.responded'; data: { actionId: string; response: Record<string, unknown> } }
  | { type: 'artifact.created'; data: { artifact: ArtifactDescriptor } }
  | { type: 'provider.event'; data: { namespace: string; name: string; payload: unknown } }
  | { type: 'run.completed'; data: { usage: Usage | null } }
  // `usage` on these two is optional only for what older writers appended: every read path fills it in (upcasters.ts).
  | { type: 'run.failed'; data: { error: ErrorInfo; usage?: Usage | null } }
  | { type: 'run.cancelled'; data: { reason: string | null; providerCleanupError: string | null; usage?: Usage | null } };

export type TerminalEventType = 'run.completed' | 'run.failed' | 'run.cancelled';
export type TerminalStatus = 'completed' | 'failed' | 'cancelled';

/** The one definition of how a run ends (docs/api.md#events): each terminal event and the status it leaves. */
export const TERMINAL_STATUS_OF: Readonly<Record<TerminalEventType, TerminalStatus>> = {
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.cancelled': 'cancelled',
};

export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(TERMINAL_STATUS_OF));
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(Object.values(TERMINAL_STATUS_OF));

export const isTerminalEvent = (type: string): type is TerminalEventType => TERMINAL_EVENT_TYPES.has(type);

/**
 * Events that change an execution's state by their sequence alone (`evolve` reads nothing else of
 * them), so of a run of them only the last one counts: the read models thin them, and the runner
 * folds a run of them at once.
 */
export const STREAMED_EVENT_TYPES: ReadonlySet<string> = new Set(['output.text.delta', 'provider.event']);

/** An event as folded: its data plus where and when it landed in the stream. */
export type RecordedExecutionEvent = ExecutionEvent & { sequence: number; occurredAt: string };
