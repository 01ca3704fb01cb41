/**
 * Read-side benchmark: the compiled server (`node dist/main.js`) as a child process over real
 * HTTP, every figure next to a baseline measured in the same run.
 *
 *   npm run bench:read                 full run (~3 minutes)
 *   npm run bench:read -- --quick      shorter phases, fewer repeats (smoke test)
 *   npm run bench:read -- --profile    phase 1 only, on a server writing a CPU profile; prints its top functions
 *
 * 1. POST /v1/executions req/s (autocannon, one conversation) vs a bare Fastify JSON route; goal ≥ 0.25.
 *    Beside it, for where the cost sits: the route refused after validation (404), and a conversation's creation.
 * 2. POST /v1/executions latency in a conversation holding 10,000 executions vs in new ones; goal within 1.2×.
 * 3. Replay of a 20,000-event execution — one read, 1,000-event pages, SSE backlog — vs a raw
 *    better-sqlite3 read of the same rows; goal ≥ 0.3 each.
 * 4. GET /v1/executions/{id} latency at 10 and at 20,000 events; goal within 2×.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { newestProfile, summarizeProfile } from './lib/cpu-profile';
import { summarizeAreas } from './lib/profile-areas';
import { startBareFastify } from './lib/bare-fastify';
import { fixed, int, line, percentile } from './lib/format';
import { HttpClient } from './lib/http-client';
import { mainThreadCpuSeconds, processCpuSeconds } from './lib/cpu';
import { httpLoad } from './lib/load';
import { rawStreamRate, replayRates } from './lib/replay-phases';
import { ServerProcess } from './lib/server';
import { alternate } from './lib/timing';

const QUICK = process.argv.includes('--quick');
const PROFILE = process.argv.includes('--profile');
const profileDir = PROFILE ? join(tmpdir(), `runledger-read-profile-${Date.now()}`) : undefined;
const LOAD_SECONDS = QUICK ? 3 : 8;
const CONNECTIONS = 20;
const CONVERSATION_SIZE = QUICK ? 2_000 : 10_000;
const POST_SAMPLES = QUICK ? 100 : 400;
const LONG_RUN = 20_000;
const REPLAY_REPEATS = QUICK ? 2 : 5;
const GET_SAMPLES = QUICK ? 300 : 2000;

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
const ms = (sorted: number[]) => `p50 ${fixed(percentile(sorted, 50), 2)} ms, p99 ${fixed(percentile(sorted, 99), 2)} ms`;

/** A load run with the server's CPU over it, per request: all its threads, and its event loop. */
async function measuredLoad(pid: number, url: string, options: { body: unknown; expect: number }) {
  const all = processCpuSeconds(pid);
  const loop = mainThreadCpuSeconds(pid);
  const result = await httpLoad(url, { connections: CONNECTIONS, seconds: LOAD_SECONDS, ...options });
  const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
  return { result, cpu: { all: perRequest(processCpuSeconds(pid) - all), loop: perRequest(mainThreadCpuSeconds(pid) - loop) } };
}

const cpuText = (cpu: { all: number; loop: number }) => `server CPU ${int(cpu.all)} µs per request (event loop ${int(cpu.loop)})`;

async function post(client: HttpClient, path: string, body: unknown): Promise<any> {
  const res = await client.json('POST', path, body);
  if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Until no execution of the tenant is queued or running (runs started under load have ended). */
async function quiesce(client: HttpClient): Promise<void> {
  for (;;) {
    const busy = await Promise.all(['queued', 'running'].map((s) => client.json('GET', `/v1/executions?status=${s}&limit=1`)));
    if (busy.every((r) => r.body.executions.length === 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  console.log(`Runledger read-side benchmark${QUICK ? ' (--quick)' : ''}: node ${process.version}, ${cpus().length} CPUs`);
  console.log(
    `load average ${loadavg()
      .map((n) => fixed(n, 2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  const server = await ServerProcess.start({ env: { LOG_LEVEL: 'error' }, cpuProfileDir: profileDir });
  const bare = await startBareFastify();
  const { client } = server;
  const big = (await post(client, '/v1/conversations', { title: 'big' })).id as string;
  const start = (conversationId: string) => ({ conversationId, provider: 'scripted', input: { text: 'hello there' } });

  console.log(`\n1. POST /v1/executions, ${CONNECTIONS} connections, ${LOAD_SECONDS} s per run, ABBA order`);
  const rates = { bare: [] as number[], server: [] as number[] };
  const cpuUs = { bare: [] as number[], server: [] as number[] };
  let created = 0;
  for (const target of ['bare', 'server', 'server', 'bare'] as const) {
    const { baseUrl, pid } = target === 'bare' ? bare : server;
    const { result, cpu } = await measuredLoad(pid, `${baseUrl}/v1/executions`, { body: start(big), expect: 201 });
    if (result.failures > 0) console.log(`  ${target}: ${result.failures} failed requests`);
    if (target === 'server') created += result.requests - result.failures;
    rates[target].push(result.perSecond);
    cpuUs[target].push(cpu.all);
    console.log(`  ${target.padEnd(6)} ${int(result.perSecond)} req/s (latency p50 ${result.p50} ms, p99 ${result.p99} ms), ${cpuText(cpu)}`);
  }
  await bare.stop();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const startRatio = mean(rates.server) / mean(rates.bare);
  console.log(line('baseline: bare Fastify JSON POST', `${int(mean(rates.bare))} req/s, server CPU ${int(mean(cpuUs.bare))} µs per request`));
  console.log(
    line(
      'POST /v1/executions',
      `${int(mean(rates.server))} req/s: ratio ${fixed(startRatio, 3)} (goal ≥ 0.25: ${verdict(startRatio >= 0.25)}), server CPU ${int(mean(cpuUs.server))} µs per request`,
    ),
  );
  // Where the start's cost sits, from the framework up: a GET with no body and no store, the
  // start's route refused by validation, the same refused once it finds no such conversation
  // (nothing written, nothing run), and a route that appends one event and runs nothing.
  const floors: [string, string, unknown, number][] = [
    ['  GET /health/live (no body, no store)', '/health/live', undefined, 200],
    ['  the start refused by validation (400)', '/v1/executions', { provider: 'scripted' }, 400],
    ['  the start, unknown conversation (404)', '/v1/executions', start('00000000-0000-7000-8000-000000000000'), 404],
    ['  POST /v1/conversations (one event)', '/v1/conversations', {}, 201],
  ];
  for (const [label, path, body, expect] of floors) {
    const { result, cpu } = await measuredLoad(server.pid, `${server.baseUrl}${path}`, { body, expect });
    console.log(
      line(
        label,
        `${int(result.perSecond)} req/s: ratio ${fixed(result.perSecond / mean(rates.bare), 3)}, ${cpuText(cpu)}${result.failures ? ` (${result.failures} failed)` : ''}`,
      ),
    );
  }

  if (profileDir) {
    await server.stop();
    const file = newestProfile(profileDir);
    if (file) for (const text of [...summarizeAreas(file), ...summarizeProfile(file, 40)]) console.log(`  ${text}`);
    return;
  }

  console.log(`\n2. POST /v1/executions in a conversation holding ${int(CONVERSATION_SIZE)} executions vs in a new conversation`);
  await quiesce(client);
  const missing = Math.max(0, CONVERSATION_SIZE - created);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < missing) await post(client, '/v1/executions', start(big));
    }),
  );
  await quiesce(client);
  const held = (await client.json('GET', `/v1/executions?conversationId=${big}&limit=1`)).body.executions.length;
  if (held !== 1) throw new Error('the big conversation lists no execution');
  const fresh = await Promise.all(Array.from({ length: POST_SAMPLES }, async () => (await post(client, '/v1/conversations', {})).id as string));
  const [inBig, inNew] = await alternate(
    POST_SAMPLES,
    () => post(client, '/v1/executions', start(big)),
    (i) => post(client, '/v1/executions', start(fresh[i])),
  );
  const postRatio = percentile(inBig, 50) / percentile(inNew, 50);
  console.log(line('baseline: new conversation', ms(inNew)));
  console.log(
    line(`holding ${int(created + missing)} executions`, `${ms(inBig)}: p50 ratio ${fixed(postRatio, 3)} (goal ≤ 1.2: ${verdict(postRatio <= 1.2)})`),
  );
  await quiesce(client);

  console.log(`\n3. Replay of a ${int(LONG_RUN)}-delta execution, ${REPLAY_REPEATS} times each way`);
  // Echo runs (one delta per space-ended chunk of the input), so both executions carry the same
  // ~40 kB of input and output text and differ only in their number of events.
  const longText = 'x '.repeat(LONG_RUN);
  const shortText = Array.from({ length: 6 }, () => `${'y'.repeat(Math.floor(longText.length / 6) - 1)} `).join('');
  const long = (await post(client, '/v1/executions', { conversationId: big, provider: 'scripted', input: { text: longText } })).id as string;
  const short = (await post(client, '/v1/executions', { conversationId: big, provider: 'scripted', input: { text: shortText } })).id as string;
  await quiesce(client);
  const total = (await client.json('GET', `/v1/executions/${long}`)).body.lastSequence as number;
  const shortTotal = (await client.json('GET', `/v1/executions/${short}`)).body.lastSequence as number;
  await replayRates(client, long, total, 1); // warm-up
  const replay = await replayRates(client, long, total, REPLAY_REPEATS);

  console.log(`\n4. GET /v1/executions/{id} at ${shortTotal} vs ${int(total)} events, ${GET_SAMPLES} sequential requests each, alternating`);
  const get = (id: string) => async () => {
    const res = await client.json('GET', `/v1/executions/${id}`);
    if (res.status !== 200) throw new Error(`GET execution: ${res.status}`);
  };
  const [getShort, getLong] = await alternate(GET_SAMPLES, get(short), get(long));
  const getRatio = percentile(getLong, 50) / percentile(getShort, 50);
  console.log(line(`baseline: ${shortTotal} events`, ms(getShort)));
  console.log(line(`${int(total)} events`, `${ms(getLong)}: p50 ratio ${fixed(getRatio, 3)} (goal ≤ 2: ${verdict(getRatio <= 2)})`));

  const output = server.output.trim();
  await server.stop({ keepFiles: true });
  if (output) console.log(`\n  server output:\n${output.replace(/^/gm, '    | ')}`);
  // Alternated three times, medians: this machine's speed drifts from one second to the next.
  const rawRuns = [0, 1, 2].map(() => [false, true].map((parse) => rawStreamRate(server.sqlitePath, `execution-${long}`, REPLAY_REPEATS * 4, parse)));
  const median3 = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  const raw = median3(rawRuns.map((r) => r[0]));
  const rawParsed = median3(rawRuns.map((r) => r[1]));
  console.log('\n3. (results; the baseline reads the file once the server has stopped)');
  console.log(line('baseline: raw read of the rows', `${int(raw)} events/s (better-sqlite3, one SELECT of the stream, no parsing)`));
  console.log(line('  raw read + JSON.parse', `${int(rawParsed)} events/s`));
  for (const [label, rate] of [
    ['one read (no limit)', replay.oneRead],
    ['1,000-event pages', replay.pages],
    ['SSE backlog', replay.sse],
  ] as const) {
    console.log(
      line(
        label,
        `${int(rate)} events/s: ratio ${fixed(rate / raw, 3)} (goal ≥ 0.3: ${verdict(rate / raw >= 0.3)}); vs raw + parse ${fixed(rate / rawParsed, 3)}`,
      ),
    );
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
