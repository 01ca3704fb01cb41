import type { ActionKind, ExecutionInput, ToolCall } from '../executions/domain/execution-events';

export type CapabilityLevel = 'native' | 'emulated' | 'degraded' | 'unsupported';

export interface ProviderManifest {
  id: string;
  displayName: string;
  capabilities: Record<string, CapabilityLevel>;
}

export interface HistoryEntry {
  input: ExecutionInput;
  outputText: string | null;
}

export interface ActionRequest {
  kind: ActionKind;
  prompt: string;
  inputSchema: object | null;
  tool: ToolCall | null;
  /** How long it may stay unanswered before the run fails ACTION_EXPIRED; default the execution's `actionTimeoutMs`. */
  timeoutMs?: number;
}

export interface ArtifactCandidate {
  name: unknown;
  mediaType: unknown;
  uri?: unknown;
  metadata?: unknown;
}

/**
 * What a provider sees while it runs. Every method resolves once its event is stored (or rejects
 * when the execution can no longer take output, e.g. after a cancel); the runner is the only
 * thing that turns these calls into events.
 */
export interface ProviderRun {
  executionId: string;
  input: ExecutionInput;
  config: Record<string, unknown>;
  /**
   * Earlier completed executions of the conversation, oldest first, for `conversation.history`:
   * read when asked (once), so a provider that does not use them costs no read.
   */
  history(): Promise<HistoryEntry[]>;
  /** Aborted when the execution is cancelled. */
  signal: AbortSignal;
  emitText(delta: string): Promise<void>;
  emitEvent(name: string, payload: unknown): Promise<void>;
  /** Resolves with the accepted response body (`{decision, comment?}` or `{value}`). */
  requireAction(request: ActionRequest): Promise<Record<string, unknown>>;
  createArtifact(candidate: ArtifactCandidate): Promise<void>;
  /**
   * Adds tokens the run has just spent (one upstream response, a scripted `usage` step) to what it
   * has spent so far: every end of the run records the sum, and the execution's budget is checked
   * against it (docs/api.md#usage-and-budgets). Rejects once the budget is passed: the run is stopped.
   */
  reportUsage(usage: { inputTokens: number; outputTokens: number }): Promise<void>;
}

export interface ProviderOutcome {
  /** The final normalized text, or null when the run produced none. */
  text: string | null;
  /** The run's whole usage; null leaves it to what `reportUsage` summed (null when nothing was reported). */
  usage: { inputTokens: number; outputTokens: number } | null;
}

/** A business failure the provider reports; becomes `run.failed` with this code. */
export class ProviderFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

export interface Provider {
  readonly manifest: ProviderManifest;
  /**
   * The `provider.event` namespace: the vocabulary of the provider's kind (`openai`, `anthropic`,
   * `scripted`), so that events read the same whatever an instance is called. Defaults to the
   * manifest id.
   */
  readonly eventNamespace?: string;
  /**
   * Checks the config's shape before anything is appended: a message when it is wrong, else null.
   * A promise when the check leaves the event loop (client JSON Schemas are checked on a worker).
   */
  validateConfig(config: Record<string, unknown>): string | null | Promise<string | null>;
  /** The model a run with this (valid) config uses, recorded on run.started for usage by model; absent or null: none. */
  modelOf?(config: Record<string, unknown>): string | null;
  run(run: ProviderRun): Promise<ProviderOutcome>;
  /** Releases whatever the run holds after a cancel; the runner calls it at most once per execution. */
  cleanup(run: { executionId: string; config: Record<string, unknown> }): Promise<void>;
}
