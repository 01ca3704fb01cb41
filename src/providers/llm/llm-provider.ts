import { HistoryEntry, Provider, ProviderFailure, ProviderOutcome, ProviderRun } from '../provider';
import { LlmSettings } from '../config/provider-settings';
import { llmManifest } from './llm-manifest';
import { resolveRunConfig, RunConfig, runConfigProblem } from './run-config';
import { answerToolCalls, AnsweredToolCall, parseToolCalls } from './tool-calls';
import { addUsage, TurnOutput, TurnResult, Usage } from './turn-output';
import { RunRefusal, withRetries } from './upstream-attempts';
import { describeUpstreamError } from './upstream-errors';

/** A guard against a model that never stops calling tools; each round already waits on people. */
const MAX_TOOL_ROUNDS = 50;

/** One execution's conversation with the upstream API, in that API's message shape. */
export interface ChatSession {
  /** Streams one response: text deltas out through `out`, the rest collected. */
  turn(out: TurnOutput): Promise<TurnResult>;
  /** Adds the model's tool calls and their answers to the messages of the next turn. */
  addToolResults(turn: TurnResult, answered: AnsweredToolCall[]): void;
}

/**
 * What openai-compatible and anthropic share: config validation, the tool loop, retries and
 * timeouts per upstream request, cancellation and keeping credentials out of every message.
 * A kind supplies only its message shape and stream mapping (`openChat`).
 */
export abstract class LlmProvider implements Provider {
  readonly manifest;
  abstract readonly eventNamespace: string;
  /** Per running execution: aborting it aborts the upstream request (the cleanup of a cancel). */
  private readonly inFlight = new Map<string, AbortController>();

  constructor(protected readonly settings: LlmSettings) {
    this.manifest = llmManifest(settings);
  }

  protected abstract openChat(run: ProviderRun, config: RunConfig, history: HistoryEntry[]): ChatSession;

  validateConfig(config: Record<string, unknown>): Promise<string | null> {
    return runConfigProblem(config, this.settings);
  }

  /** The config's `model`, else the instance's default: what run.started records (docs/api.md#usage-and-budgets). */
  modelOf(config: Record<string, unknown>): string {
    return resolveRunConfig(config, this.settings).model;
  }

  async run(run: ProviderRun): Promise<ProviderOutcome> {
    const controller = new AbortController();
    this.inFlight.set(run.executionId, controller);
    const signal = AbortSignal.any([run.signal, controller.signal]);
    try {
      return await this.loop(run, resolveRunConfig(run.config, this.settings), signal);
    } catch (error) {
      if (error instanceof RunRefusal) throw error.refusal;
      // Cancelled: the runner records the end and drops whatever the provider says now.
      if (signal.aborted) throw error;
      const failure = error instanceof ProviderFailure ? error : new ProviderFailure('PROVIDER_ERROR', describeUpstreamError(error));
      throw new ProviderFailure(failure.code, this.redact(failure.message));
    } finally {
      this.inFlight.delete(run.executionId);
    }
  }

  async cleanup({ executionId }: { executionId: string }): Promise<void> {
    this.inFlight.get(executionId)?.abort(new Error('execution cancelled'));
    this.inFlight.delete(executionId);
  }

  private async loop(run: ProviderRun, config: RunConfig, signal: AbortSignal): Promise<ProviderOutcome> {
    const chat = this.openChat(run, config, await run.history());
    const { timeouts, retries } = this.settings;
    let text = '';
    let usage: Usage | null = null;
    for (let round = 1; ; round++) {
      const turn = await withRetries((guard, progress) => chat.turn(new TurnOutput(run, guard, progress)), { signal, timeouts, retries });
      text += turn.text;
      usage = addUsage(usage, turn.usage);
      // After each upstream response, so a budget stops the tool loop before it asks again.
      if (turn.usage) await run.reportUsage(turn.usage);
      if (turn.toolCalls.length === 0) return { text: text || null, usage };
      if (round >= MAX_TOOL_ROUNDS) throw new ProviderFailure('PROVIDER_ERROR', `the model was still calling tools after ${MAX_TOOL_ROUNDS} rounds`);
      chat.addToolResults(turn, await answerToolCalls(run, parseToolCalls(turn.toolCalls), config.tools));
    }
  }

  /** The last guard: no message leaves with the key in it, whatever produced it. */
  private redact(message: string): string {
    return this.settings.apiKey ? this.settings.apiKey.redact(message) : message;
  }
}
