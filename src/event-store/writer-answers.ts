import type { MessagePort } from 'node:worker_threads';
import { StoreUnavailableError, WrongExpectedRevisionError } from './event-store';
import type { WriterFailure, WriterOutcome, WriterResponse } from './writer-messages';

function failureOf(error: Error): WriterFailure {
  if (error instanceof WrongExpectedRevisionError) return { kind: 'conflict', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof StoreUnavailableError) {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return { kind: 'unavailable', message: error.message, code: cause?.code, causeMessage: cause?.message ?? error.message };
  }
  return { kind: 'error', message: error.message, code: (error as { code?: string }).code };
}

/**
 * A writer thread's side of writer-client.ts: the outcomes settled inside one commit leave
 * together, in one message, once the commit's callbacks have all run.
 */
export class WriterAnswers {
  private outcomes: WriterOutcome[] = [];
  private sizes: { appends: number; events: number }[] = [];
  /** Fault tests: the thread ends after its next commit, before acknowledging it. */
  crashAfterCommit = false;

  constructor(private readonly port: MessagePort) {}

  resolved(id: number): (result: Extract<WriterOutcome, { result: unknown }>['result']) => void {
    return (result) => this.settle({ id, result });
  }

  rejected(id: number): (error: Error) => void {
    return (error) => this.settle({ id, failure: failureOf(error) });
  }

  committed(appends: number, events: number): void {
    this.sizes.push({ appends, events });
  }

  /** Sends what has settled (the close sends the rest this way before answering `closed`). */
  send(): void {
    if (this.outcomes.length === 0) return;
    // process.exit in a worker ends the thread only: as if it died between commit and answer.
    if (this.crashAfterCommit) process.exit(1);
    const message: WriterResponse = { kind: 'settled', outcomes: this.outcomes, commits: this.sizes };
    this.outcomes = [];
    this.sizes = [];
    this.port.postMessage(message);
  }

  private settle(outcome: WriterOutcome): void {
    if (this.outcomes.length === 0) queueMicrotask(() => this.send());
    this.outcomes.push(outcome);
  }
}
