import { withStoreRetry } from '../commands/store-retry';
import { ExecutionState } from '../domain/execution-state';
import { currentTrace, inSpan } from '../../observability/tracing';
import { HistoryEntry, Provider, ProviderOutcome } from '../../providers/provider';
import { ProviderOutlet, providerRun } from './provider-callbacks';

/**
 * One execution's provider, as its session calls it: the run in a span, the conversation's history
 * read once when asked, the cleanup run at most once whoever ends the run. Made inside the
 * execution's own trace, where its cleanup belongs whoever cancels.
 */
export class ProviderCall {
  private readonly inOwnTrace = currentTrace();
  private cleanup: Promise<string | null> | null = null;
  private history: Promise<HistoryEntry[]> | null = null;

  constructor(
    private readonly provider: Provider,
    /** The execution's state as of now (its config, its id). */
    private readonly state: () => ExecutionState,
    /** Aborted when the session stops the run. */
    private readonly signal: AbortSignal,
    private readonly options: { history: () => Promise<HistoryEntry[]>; storeRetryMs: number },
  ) {}

  /** The model run.started names, when the provider can tell it from the config. */
  model(): string | undefined {
    return this.provider.modelOf?.(this.state().config) ?? undefined;
  }

  /**
   * The provider call, in a span whose children are the appends of its output. What it throws once
   * `stopped` (a cancel, a limit, an outage, whose own spans tell) is no failure of its.
   */
  run(outlet: ProviderOutlet, stopped: () => boolean): Promise<ProviderOutcome> {
    return inSpan(
      'provider.run',
      this.spanAttributes(),
      async (span) => {
        const outcome = await this.provider.run(providerRun(this.state(), this.provider, () => this.readHistory(), this.signal, outlet));
        if (outcome.usage) {
          span.setAttribute('gen_ai.usage.input_tokens', outcome.usage.inputTokens);
          span.setAttribute('gen_ai.usage.output_tokens', outcome.usage.outputTokens);
        }
        return outcome;
      },
      { expected: () => (stopped() ? 'STOPPED' : null) },
    );
  }

  /** The provider's cleanup, run at most once; resolves with its error message. */
  cleanupOnce(): Promise<string | null> {
    const { id, config } = this.state();
    this.cleanup ??= this.inOwnTrace(() => inSpan('provider.cleanup', this.spanAttributes(), () => this.provider.cleanup({ executionId: id, config }))).then(
      () => null,
      (error) => (error as Error)?.message || String(error),
    );
    return this.cleanup;
  }

  /**
   * The history, read once when the provider asks for it. It comes from a read model: a file that
   * briefly cannot be written waits like output does.
   */
  private readHistory(): Promise<HistoryEntry[]> {
    return (this.history ??= withStoreRetry(this.options.history, { retryMs: this.options.storeRetryMs, signal: this.signal }));
  }

  private spanAttributes() {
    return { 'runledger.execution_id': this.state().id, 'runledger.provider': this.provider.manifest.id };
  }
}
