import { int, line } from './format';
import { HttpClient, SseMessage } from './http-client';

export type ScriptStep = { type: 'text'; text: string } | { type: 'delay'; ms: number };

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

export interface PhaseResult {
  runs: RunObservation[];
  /** performance.now() right before the first POST /v1/executions. */
  startedAt: number;
  /** performance.now() when the last terminal event was received. */
  endedAt: number;
  latencies: LatencyLog;
}

export interface PhaseOptions {
  label: string;
  executions: number;
  script: ScriptStep[];
  /** Record per-delta latency (receive time − occurredAt). */
  measureLatency: boolean;
  timeoutMs: number;
  /**
   * Which server execution i is started on and which one its SSE client reads from; `client` for
   * both when absent. Lets a bench make delivery cross instances.
   */
  route?: (i: number) => { start: HttpClient; stream: HttpClient };
}

/**
 * Starts `executions` scripted runs at once, each on its own conversation (created beforehand,
 * outside the measured window), attaches one SSE client per run as soon as its 201 arrives,
 * and reads every stream to its terminal event, printing progress every second.
 */
export async function runPhase(client: HttpClient, options: PhaseOptions, onStarted?: () => void): Promise<PhaseResult> {
  const texts = options.script.filter((s): s is { type: 'text'; text: string } => s.type === 'text').map((s) => s.text);
  const route = options.route ?? (() => ({ start: client, stream: client }));
  const conversations = await Promise.all(
    Array.from({ length: options.executions }, async (_, i) => {
      const response = await route(i).start.json('POST', '/v1/conversations', {});
      if (response.status !== 201) throw new Error(`POST /v1/conversations: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.id as string;
    }),
  );
  const latencies = new LatencyLog();
  const runs = conversations.map((_, i) => new RunObservation(i, texts, options.measureLatency ? latencies : null));
  const body = (conversationId: string) => ({
    conversationId,
    provider: 'scripted',
    input: { text: `bench ${options.label}` },
    config: { script: options.script },
  });

  const total = options.executions * texts.length;
  const startedAt = performance.now();
  onStarted?.();
  let lastCount = 0;
  let lastLatency = 0;
  const ticker = setInterval(() => {
    let worst = '';
    if (options.measureLatency && latencies.ms.length > lastLatency) {
      const recent = latencies.ms.slice(lastLatency).sort((a, b) => a - b);
      lastLatency = latencies.ms.length;
      worst = `, latency this second p99 ${recent[Math.ceil(recent.length * 0.99) - 1]} ms max ${recent[recent.length - 1]} ms`;
    }
    const received = runs.reduce((n, r) => n + r.deltas, 0);
    const done = runs.filter((r) => r.terminal).length;
    const elapsed = (performance.now() - startedAt) / 1000;
    process.stdout.write(
      `  [${options.label} ${elapsed.toFixed(1).padStart(5)}s] deltas received ${received.toLocaleString('en-US')}/${total.toLocaleString('en-US')}` +
        ` (+${(received - lastCount).toLocaleString('en-US')}/s), runs ended ${done}/${runs.length}${worst}\n`,
    );
    lastCount = received;
  }, 1000);
  let timer: NodeJS.Timeout | undefined;
  try {
    const all = Promise.all(
      runs.map(async (run, i) => {
        const started = await route(i).start.json('POST', '/v1/executions', body(conversations[i]));
        if (started.status !== 201) throw new Error(`POST /v1/executions: ${started.status} ${JSON.stringify(started.body)}`);
        run.id = started.body.id;
        await route(i).stream.sse(
          `/v1/executions/${run.id}/events`,
          (message, at) => run.onMessage(message, at),
          () => (run.openedAt = Date.now()),
        );
        run.finish();
      }),
    );
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`${options.label} did not finish within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
    });
    await Promise.race([all, timeout]);
  } finally {
    clearInterval(ticker);
    clearTimeout(timer);
  }
  const endedAt = Math.max(...runs.map((r) => r.endedAt));
  return { runs, startedAt, endedAt, latencies };
}

/** Prints whether every SSE client got exactly `expected` deltas in order, then the run's end. */
export function reportRuns(runs: RunObservation[], expected: number): boolean {
  const bad = runs.filter((r) => r.problems.length > 0);
  if (bad.length === 0) {
    console.log(line('SSE check', `OK: all ${runs.length} clients got exactly ${int(expected)} deltas in sequence order, then run.completed`));
    return true;
  }
  console.log(line('SSE check', `FAILED for ${bad.length} of ${runs.length} clients`));
  for (const run of bad.slice(0, 10)) console.log(`    FAILURE execution ${run.id || `#${run.index}`}: ${run.problems.join('; ')}`);
  return false;
}
