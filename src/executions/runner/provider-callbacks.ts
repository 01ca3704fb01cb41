import { newId } from '../../common/ids';
import { nowIso } from '../../common/clock';
import { HistoryEntry, Provider, ProviderRun } from '../../providers/provider';
import { ExecutionCommand } from '../domain/execution-decide';
import { ErrorInfo } from '../domain/execution-events';
import { ExecutionState } from '../domain/execution-state';
import { actionExpiry } from '../domain/execution-deadlines';
import { artifactProblem } from './artifact-validation';

/** What the provider's callbacks turn into: commands for the session, and the answers it waits on. */
export interface ProviderOutlet {
  /** Output the provider need not wait for (deltas, provider events): back-pressured. */
  stream(command: ExecutionCommand): Promise<void>;
  /** Output the provider waits on until it is appended. */
  output(command: ExecutionCommand): Promise<void>;
  /**
   * Resolves with the stored answer to `actionId`; rejects when the run stops first. Registered
   * before the action is emitted, with the instant it expires (null: never).
   */
  answer(actionId: string, expiresAt: string | null): Promise<Record<string, unknown>>;
  /** The runtime, not the provider, ends the run (an invalid artifact descriptor); rejects for the provider. */
  fail(error: ErrorInfo): Promise<never>;
  /** Counts tokens the run spent; rejects once they pass its budget (docs/api.md#usage-and-budgets). */
  usage(report: { inputTokens: number; outputTokens: number }): Promise<void>;
}

/** Adapts the provider's callbacks (docs/providers.md) to the session's commands. */
export function providerRun(
  state: ExecutionState,
  provider: Provider,
  history: () => Promise<HistoryEntry[]>,
  signal: AbortSignal,
  outlet: ProviderOutlet,
): ProviderRun {
  const namespace = provider.eventNamespace ?? provider.manifest.id;
  return {
    executionId: state.id,
    input: state.input,
    config: state.config,
    history,
    signal,
    emitText: (delta) => outlet.stream({ type: 'emit', output: [{ type: 'output.text.delta', data: { delta } }] }),
    emitEvent: (name, payload) => outlet.stream({ type: 'emit', output: [{ type: 'provider.event', data: { namespace, name, payload } }] }),
    requireAction: async ({ kind, prompt, inputSchema, tool, timeoutMs }) => {
      const actionId = newId();
      const expiresAt = actionExpiry(state, nowIso(), timeoutMs);
      const answered = outlet.answer(actionId, expiresAt);
      answered.catch(() => undefined);
      const data = { actionId, kind, prompt, inputSchema, tool, ...(expiresAt !== null && { expiresAt }) };
      await outlet.output({ type: 'emit', output: [{ type: 'action.required', data }] });
      return answered;
    },
    reportUsage: (report) => outlet.usage(report),
    createArtifact: async (candidate) => {
      const artifact = {
        id: newId(),
        executionId: state.id,
        name: candidate.name,
        mediaType: candidate.mediaType,
        createdAt: nowIso(),
        uri: candidate.uri ?? null,
        metadata: candidate.metadata ?? {},
      };
      const problem = artifactProblem(artifact);
      // The runtime, not the provider, decides that an invalid descriptor ends the run (docs/api.md#artifacts).
      if (problem) return outlet.fail({ code: 'PROVIDER_ERROR', message: `invalid artifact descriptor: ${problem}` });
      await outlet.output({ type: 'emit', output: [{ type: 'artifact.created', data: { artifact: artifact as never } }] });
    },
  };
}
