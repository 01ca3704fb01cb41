/**
 * The two sides of bench:abuse that must not share the bench's main thread: the liveness probe
 * (a late probe must mean a late server, not a busy bench) and the flood tenant's client, whose
 * SSE parsing of hundreds of thousands of events would otherwise delay the victim's clock.
 * Each runs in a worker thread; `startWorker` loads this file through ts-node.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { HttpClient } from './http-client';
import { RunObservation } from './run-observation';

/** Epoch milliseconds, comparable across threads (each has its own performance.timeOrigin). */
export const epochMs = () => performance.timeOrigin + performance.now();

export interface ProbeData {
  role: 'probe';
  baseUrl: string;
  intervalMs: number;
  maxSeconds: number;
}

export interface FloodData {
  role: 'flood';
  baseUrl: string;
  apiKey: string;
  executions: number;
  deltas: number;
  /** `script`: config.script of text steps; `words`: input.text of that many words, no script. */
  mode: 'script' | 'words';
  readers: boolean;
  maxSeconds: number;
}

export type ProbeMessage = { type: 'samples'; ms: number[]; failures: number };
export type FloodMessage =
  | { type: 'posting' }
  | { type: 'started'; at: number; postMs: number[] }
  | { type: 'progress'; deltas: number; ended: number }
  | { type: 'done'; startedAt: number; endedAt: number; deltas: number; problems: string[]; lastSequences: number[] };

export function startWorker(data: ProbeData | FloodData): Worker {
  const code = `require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(__filename)});`;
  return new Worker(code, { eval: true, workerData: data });
}

/**
 * GET /health/live every `intervalMs` (one at a time: a slow answer delays the next), each
 * latency recorded in the current window; the message 'window' answers the window and starts
 * the next one, 'stop' ends the loop.
 */
async function probe(data: ProbeData): Promise<void> {
  const client = new HttpClient(data.baseUrl);
  let stopped = false;
  let ms: number[] = [];
  let failures = 0;
  parentPort!.on('message', (message: string) => {
    if (message === 'window' || message === 'stop') {
      parentPort!.postMessage({ type: 'samples', ms, failures } satisfies ProbeMessage);
      ms = [];
      failures = 0;
    }
    if (message === 'stop') stopped = true;
  });
  const deadline = Date.now() + data.maxSeconds * 1000;
  while (!stopped && Date.now() < deadline) {
    const started = performance.now();
    try {
      const response = await client.json('GET', '/health/live');
      if (response.status !== 200) failures += 1;
    } catch {
      failures += 1;
    }
    ms.push(performance.now() - started);
    const wait = started + data.intervalMs - performance.now();
    if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
  }
  client.close();
}

/** What the flood's execution i streams: the texts it sends and the body that asks for them. */
export function floodRequest(data: FloodData, i: number, conversationId: string): { texts: string[]; body: unknown } {
  const texts = Array.from({ length: data.deltas }, (_, n) => (n === data.deltas - 1 ? `f${i}.${n}` : `f${i}.${n} `));
  const input = data.mode === 'words' ? { text: texts.join('') } : { text: `flood ${i}` };
  const config = data.mode === 'script' ? { script: texts.map((text) => ({ type: 'text', text })) } : {};
  return { texts, body: { conversationId, provider: 'scripted', input, config } };
}

/**
 * Starts the flood's executions at once (one conversation each) and follows each to its end:
 * with an SSE client reading every event (checked for order and completeness), or with a GET
 * every 500 ms when `readers` is off.
 */
async function flood(data: FloodData): Promise<void> {
  const client = new HttpClient(data.baseUrl, { authorization: `Bearer ${data.apiKey}` });
  const deadline = Date.now() + data.maxSeconds * 1000;
  const conversations = await Promise.all(
    Array.from({ length: data.executions }, async () => {
      const response = await client.json('POST', '/v1/conversations', {});
      if (response.status !== 201) throw new Error(`flood POST /v1/conversations: ${response.status}`);
      return response.body.id as string;
    }),
  );
  const requests = conversations.map((id, i) => floodRequest(data, i, id));
  const runs = requests.map((r, i) => new RunObservation(i, r.texts, null));
  parentPort!.postMessage({ type: 'posting' } satisfies FloodMessage);
  const startedAt = epochMs();
  const postMs: number[] = [];
  const ids = await Promise.all(
    requests.map(async (r) => {
      const began = performance.now();
      const response = await client.json('POST', '/v1/executions', r.body);
      postMs.push(performance.now() - began);
      if (response.status !== 201) throw new Error(`flood POST /v1/executions: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
      return response.body.id as string;
    }),
  );
  parentPort!.postMessage({ type: 'started', at: epochMs(), postMs } satisfies FloodMessage);
  const ticker = setInterval(() => {
    parentPort!.postMessage({
      type: 'progress',
      deltas: runs.reduce((n, r) => n + r.deltas, 0),
      ended: runs.filter((r) => r.terminal).length,
    } satisfies FloodMessage);
  }, 1000);
  const endedAt: number[] = [];
  try {
    await Promise.all(
      ids.map(async (id, i) => {
        const run = runs[i];
        run.id = id;
        if (data.readers) {
          await client.sse(`/v1/executions/${id}/events`, (message, at) => run.onMessage(message, at));
        } else {
          while (Date.now() < deadline) {
            const response = await client.json('GET', `/v1/executions/${id}`);
            if (['completed', 'failed', 'cancelled'].includes(response.body?.status)) {
              run.terminal = `run.${response.body.status}`;
              run.deltas = data.deltas;
              run.lastSequence = response.body.lastSequence;
              break;
            }
            await new Promise((ok) => setTimeout(ok, 500));
          }
        }
        endedAt.push(epochMs());
        if (data.readers) run.finish();
        else if (run.terminal !== 'run.completed') run.problems.push(`ended with ${run.terminal ?? 'nothing before the deadline'}`);
      }),
    );
  } finally {
    clearInterval(ticker);
  }
  parentPort!.postMessage({
    type: 'done',
    startedAt,
    endedAt: Math.max(...endedAt),
    deltas: runs.reduce((n, r) => n + r.deltas, 0),
    problems: runs.flatMap((r) => r.problems.map((p) => `flood execution ${r.id}: ${p}`)),
    lastSequences: runs.map((r) => r.lastSequence),
  } satisfies FloodMessage);
  client.close();
}

if (!isMainThread && parentPort) {
  const data = workerData as ProbeData | FloodData;
  const body = data.role === 'probe' ? probe(data) : flood(data);
  // Thrown outside the promise, the failure ends the worker with an 'error' event the bench sees.
  body.catch((error) =>
    setImmediate(() => {
      throw error;
    }),
  );
}
