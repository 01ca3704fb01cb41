import { SseMessage } from './http-client';

interface Envelope {
  executionId: string;
  sequence: number;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/** Per received delta, in receive order: receipt time (epoch ms), latency (ms), and whether it was live. */
export class LatencyLog {
  readonly at: number[] = [];
  readonly ms: number[] = [];
  /** False for a delta emitted before its SSE client had attached (it came from the backlog). */
  readonly live: boolean[] = [];
}

/** What one SSE client saw of one execution. */
export class RunObservation {
  id = '';
  deltas = 0;
  lastSequence = 0;
  terminal: string | null = null;
  problems: string[] = [];
  endedAt = 0;
  /** Epoch ms when the SSE response (200) arrived. */
  openedAt = Infinity;

  constructor(
    readonly index: number,
    private readonly expectedTexts: string[],
    private readonly latencies: LatencyLog | null,
  ) {}

  onMessage(message: SseMessage, receivedAt: number): void {
    const event = JSON.parse(message.data) as Envelope;
    if (event.sequence !== this.lastSequence + 1) {
      this.problem(`sequence ${event.sequence} after ${this.lastSequence}`);
    }
    if (message.id !== String(event.sequence)) this.problem(`SSE id ${message.id} for sequence ${event.sequence}`);
    this.lastSequence = event.sequence;
    if (this.terminal) this.problem(`${event.type} after the terminal ${this.terminal}`);
    if (event.type === 'output.text.delta') {
      const expected = this.expectedTexts[this.deltas];
      if (event.data.delta !== expected) this.problem(`delta #${this.deltas + 1} is ${JSON.stringify(event.data.delta)}, expected ${JSON.stringify(expected)}`);
      this.deltas += 1;
      // The runner stamps occurredAt (ms precision, truncated) when the provider emits the delta.
      if (this.latencies) {
        const occurredAt = Date.parse(event.occurredAt);
        this.latencies.at.push(receivedAt);
        this.latencies.ms.push(receivedAt - occurredAt);
        // occurredAt is truncated to the ms, so a delta stamped in the ms the stream opened counts as live.
        this.latencies.live.push(occurredAt >= Math.floor(this.openedAt));
      }
    } else if (TERMINAL.has(event.type)) {
      this.terminal = event.type;
      this.endedAt = performance.now();
    }
  }

  finish(): void {
    if (this.deltas !== this.expectedTexts.length) this.problem(`got ${this.deltas} deltas, expected ${this.expectedTexts.length}`);
    if (this.terminal !== 'run.completed') this.problem(`ended with ${this.terminal ?? 'no terminal event'}, expected run.completed`);
  }

  private problem(text: string): void {
    if (this.problems.length < 5) this.problems.push(text);
  }
}
