/**
 * The SSE clients of a streaming phase (streaming-runs.ts), in worker threads of their own. A
 * delta's receipt time is then stamped by a loop that does nothing but read streams, not by the
 * one that also posts the starts and parses their 201s (each carries the run's script, ~60 kB in
 * bench:stream): in the first second of a phase that loop was measured adding ~150 ms to the
 * latency the bench printed (docs/benchmarks.md). `startReceivers` loads this file through ts-node.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { HttpClient } from './http-client';
import { LatencyLog, RunObservation } from './run-observation';

/** Epoch milliseconds, comparable across threads (each has its own performance.timeOrigin). */
const epochMs = (now: number) => performance.timeOrigin + now;

interface ReceiverData {
  texts: string[];
  measureLatency: boolean;
}

type Command = { kind: 'attach'; index: number; baseUrl: string; headers: Record<string, string>; path: string };

/** What a run's observation holds once its stream has ended, the times as epoch ms. */
type Finished = Pick<RunObservation, 'deltas' | 'lastSequence' | 'terminal' | 'problems' | 'endedAt' | 'openedAt'>;

type Report =
  | { kind: 'ready' }
  | { kind: 'samples'; at: number[]; ms: number[]; live: boolean[]; received: number }
  | { kind: 'finished'; index: number; run: Finished }
  | { kind: 'failed'; index: number; message: string };

/** Samples are sent this often, so the bench's per-second progress line stays current. */
const SAMPLE_INTERVAL_MS = 100;

/** The bench's side: `attach` reads one execution's stream in a worker; it settles when the stream ends. */
export class SseReceivers {
  private readonly waiting = new Map<number, { run: RunObservation; ok(): void; fail(error: Error): void }>();
  private readonly received: number[];
  private next = 0;

  private constructor(
    private readonly workers: Worker[],
    private readonly latencies: LatencyLog | null,
  ) {
    this.received = workers.map(() => 0);
    workers.forEach((worker, k) => {
      worker.on('message', (report: Report) => this.handle(k, report));
      worker.on('error', (error) => this.failAll(error));
    });
  }

  /** `count` workers, each told the phase's expected delta texts once; resolves when all are listening. */
  static async start(count: number, texts: string[], latencies: LatencyLog | null): Promise<SseReceivers> {
    const code = `require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(__filename)});`;
    const workers = Array.from(
      { length: count },
      () => new Worker(code, { eval: true, workerData: { texts, measureLatency: latencies !== null } satisfies ReceiverData }),
    );
    await Promise.all(workers.map((w) => new Promise<void>((ok, fail) => w.once('message', () => ok()).once('error', fail))));
    return new SseReceivers(workers, latencies);
  }

  /** Deltas received so far, by every worker. */
  get deltas(): number {
    return this.received.reduce((a, b) => a + b, 0);
  }

  attach(run: RunObservation, client: HttpClient, path: string): Promise<void> {
    const worker = this.workers[this.next++ % this.workers.length];
    return new Promise((ok, fail) => {
      this.waiting.set(run.index, { run, ok, fail });
      worker.postMessage({ kind: 'attach', index: run.index, baseUrl: client.baseUrl, headers: client.headers, path } satisfies Command);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private handle(worker: number, report: Report): void {
    if (report.kind === 'samples') {
      this.received[worker] = report.received;
      if (this.latencies) {
        for (let i = 0; i < report.ms.length; i++) {
          this.latencies.at.push(report.at[i]);
          this.latencies.ms.push(report.ms[i]);
          this.latencies.live.push(report.live[i]);
        }
      }
      return;
    }
    if (report.kind === 'ready') return;
    const waiting = this.waiting.get(report.index);
    if (!waiting) return;
    this.waiting.delete(report.index);
    if (report.kind === 'failed') return waiting.fail(new Error(report.message));
    // Back to this thread's clock, as RunObservation.endedAt is everywhere else.
    Object.assign(waiting.run, report.run, { endedAt: report.run.endedAt - performance.timeOrigin });
    waiting.ok();
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.fail(error);
    this.waiting.clear();
  }
}

/** The worker's side: one HttpClient per server, one observation per stream, samples sent in batches. */
function receive({ texts, measureLatency }: ReceiverData): void {
  const clients = new Map<string, HttpClient>();
  const latencies = measureLatency ? new LatencyLog() : null;
  let sent = 0;
  let received = 0;
  const flush = () => {
    const at = latencies ? latencies.at.slice(sent) : [];
    const ms = latencies ? latencies.ms.slice(sent) : [];
    const live = latencies ? latencies.live.slice(sent) : [];
    sent += at.length;
    parentPort!.postMessage({ kind: 'samples', at, ms, live, received } satisfies Report);
  };
  // Until the bench terminates this thread at the end of the phase.
  setInterval(flush, SAMPLE_INTERVAL_MS);
  parentPort!.on('message', (command: Command) => {
    const key = `${command.baseUrl} ${JSON.stringify(command.headers)}`;
    if (!clients.has(key)) clients.set(key, new HttpClient(command.baseUrl, command.headers));
    const run = new RunObservation(command.index, texts, latencies);
    clients
      .get(key)!
      .sse(
        command.path,
        (message, at) => {
          const before = run.deltas;
          run.onMessage(message, at);
          received += run.deltas - before;
        },
        () => (run.openedAt = Date.now()),
      )
      .then(
        () => {
          run.finish();
          // Its last samples first: the bench reads the phase's figures once every run has finished.
          flush();
          const { deltas, lastSequence, terminal, problems, endedAt, openedAt } = run;
          parentPort!.postMessage({
            kind: 'finished',
            index: run.index,
            run: { deltas, lastSequence, terminal, problems, endedAt: epochMs(endedAt), openedAt },
          } satisfies Report);
        },
        (error: Error) => parentPort!.postMessage({ kind: 'failed', index: run.index, message: error.message } satisfies Report),
      );
  });
  parentPort!.postMessage({ kind: 'ready' } satisfies Report);
}

if (!isMainThread && parentPort && (workerData as ReceiverData | undefined)?.texts) receive(workerData as ReceiverData);
