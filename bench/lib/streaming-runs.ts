import { int, line } from './format';
import { HttpClient } from './http-client';
import { LatencyLog, RunObservation } from './run-observation';
import { SseReceivers } from './sse-receivers';

export type ScriptStep = { type: 'text'; text: string } | { type: 'delay'; ms: number };

export interface PhaseResult {
  runs: RunObservation[];
  /** performance.now() right before the first POST /v1/executions. */
  startedAt: number;
  /** performance.now() when the last terminal event was received. */
  endedAt: number;
  latencies: LatencyLog;
  /** When each 201 arrived, in ms after startedAt, in arrival order: how long the burst of starts took. */
  created: number[];
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

/** SSE receiver threads per phase: one per core here, beside the servers they measure. */
const RECEIVER_THREADS = 2;

/**
 * Starts `executions` scripted runs at once, each on its own conversation (created beforehand,
 * outside the measured window), attaches one SSE client per run as soon as its 201 arrives,
 * and reads every stream to its terminal event, printing progress every second. The streams are
 * read in worker threads (sse-receivers.ts), so this thread's starts never delay a receipt.
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
  const runs = conversations.map((_, i) => new RunObservation(i, texts, null));
  const receivers = await SseReceivers.start(RECEIVER_THREADS, texts, options.measureLatency ? latencies : null);
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
      const p99 = (sorted: number[]) => sorted[Math.ceil(sorted.length * 0.99) - 1];
      const recent = latencies.ms.slice(lastLatency).sort((a, b) => a - b);
      // Backlog deltas (emitted before their client attached) wait for the attach: apart, what a live stream saw.
      const live = latencies.ms.slice(lastLatency).filter((_, k) => latencies.live[lastLatency + k]);
      live.sort((a, b) => a - b);
      lastLatency = latencies.ms.length;
      worst = `, latency this second p99 ${p99(recent)} ms max ${recent[recent.length - 1]} ms (live: ${live.length > 0 ? `p99 ${p99(live)} ms` : 'none'})`;
    }
    const received = receivers.deltas;
    const done = runs.filter((r) => r.terminal).length;
    const elapsed = (performance.now() - startedAt) / 1000;
    process.stdout.write(
      `  [${options.label} ${elapsed.toFixed(1).padStart(5)}s] deltas received ${received.toLocaleString('en-US')}/${total.toLocaleString('en-US')}` +
        ` (+${(received - lastCount).toLocaleString('en-US')}/s), runs ended ${done}/${runs.length}${worst}\n`,
    );
    lastCount = received;
  }, 1000);
  let timer: NodeJS.Timeout | undefined;
  const created: number[] = [];
  try {
    const all = Promise.all(
      runs.map(async (run, i) => {
        const started = await route(i).start.json('POST', '/v1/executions', body(conversations[i]));
        if (started.status !== 201) throw new Error(`POST /v1/executions: ${started.status} ${JSON.stringify(started.body)}`);
        run.id = started.body.id;
        created.push(performance.now() - startedAt);
        await receivers.attach(run, route(i).stream, `/v1/executions/${run.id}/events`);
      }),
    );
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`${options.label} did not finish within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
    });
    await Promise.race([all, timeout]);
  } finally {
    clearInterval(ticker);
    clearTimeout(timer);
    await receivers.close();
  }
  const endedAt = Math.max(...runs.map((r) => r.endedAt));
  return { runs, startedAt, endedAt, latencies, created };
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
