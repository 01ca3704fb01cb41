import { ProviderRun } from '../provider';
import { RequestGuard } from './request-guard';
import { RawToolCall } from './tool-calls';
import { AttemptProgress, RunRefusal } from './upstream-attempts';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/** What one upstream response asked for once it ended. */
export interface TurnResult {
  text: string;
  toolCalls: RawToolCall[];
  usage: Usage | null;
}

/**
 * The run as one upstream request sees it: every chunk restarts the idle clock, and whatever it
 * emits marks the request as started (never retried after that). The run's own refusals are
 * wrapped so that they pass through the upstream error handling untouched.
 */
export class TurnOutput {
  constructor(
    private readonly run: ProviderRun,
    private readonly guard: RequestGuard,
    private readonly progress: AttemptProgress,
  ) {}

  get signal(): AbortSignal {
    return this.guard.signal;
  }

  /** A chunk arrived from upstream. */
  chunk(): void {
    this.guard.touch();
  }

  text(delta: string): Promise<void> {
    // The binding's deltas are non-empty; servers often open with an empty content chunk.
    if (!delta) return Promise.resolve();
    return this.emit(() => this.run.emitText(delta));
  }

  event(name: string, payload: Record<string, unknown>): Promise<void> {
    return this.emit(() => this.run.emitEvent(name, payload));
  }

  /** Ends the stream loop: the SDKs end quietly on an abort, the guard says why it stopped. */
  finish(): void {
    this.guard.throwIfStopped();
  }

  private async emit(send: () => Promise<void>): Promise<void> {
    this.progress.emitted = true;
    this.guard.pause();
    try {
      await send();
    } catch (error) {
      throw new RunRefusal(error);
    }
    this.guard.touch();
  }
}

export const addUsage = (a: Usage | null, b: Usage | null): Usage | null =>
  a && b ? { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens } : (a ?? b);
