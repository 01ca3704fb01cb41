/**
 * Streaming benchmark: the compiled server (`node dist/main.js`) as a child process, driven over
 * real HTTP with one SSE client per execution.
 *
 *   npm run bench:stream              100 executions per phase (~1 minute)
 *   npm run bench:stream -- --quick   10 executions, shorter latency phase (smoke test)
 *   npm run bench:stream -- --paced   phase 4 only (the quickest A/B of the paced figures)
 *   npm run bench:stream -- --flat-out phases 1 and 2 only (the quickest A/B of the flat-out figures)
 *   npm run bench:stream -- --profile also writes a V8 CPU profile per server and prints its
 *                                     top self-time functions
 *   BENCH_SERVER_MAIN=/copy/dist/main.js  runs another build (A/B); it needs node_modules and
 *                                     package.json beside its dist/ (symlinks will do)
 *
 * 1. Baseline: raw better-sqlite3 inserts of delta-shaped rows, 50 per transaction, WAL, FULL.
 * 2. Throughput: N executions × 1,000 deltas as fast as they go; delta events stored per second.
 * 3. Latency: N executions × 50 deltas/s for 10 s; occurredAt → SSE receipt, server CPU.
 * 4. Paced: N executions × 100 deltas/s for 10 s, first on a bare node:http SSE server playing the
 *    same scripts (bench/lib/bare-sse-server.ts), then on Runledger: deltas delivered per second
 *    (goal ≥ 0.95 of the bare server's), latency p99 (goal ≤ 10 ms), CPU per delta side by side.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBareSse } from './lib/bare-fastify';
import { CpuWindow } from './lib/cpu';
import { HttpClient } from './lib/http-client';
import { newestProfile, summarizeProfile } from './lib/cpu-profile';
import { fixed, int, line, percentile } from './lib/format';
import { ServerProcess } from './lib/server';
import { sqliteBaseline } from './lib/sqlite-baseline';
import { PhaseResult, ScriptStep, runPhase, reportRuns } from './lib/streaming-runs';

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
const PACED_ONLY = args.has('--paced');
const FLAT_OUT_ONLY = args.has('--flat-out');
const EXECUTIONS = QUICK ? 10 : 100;
const DELTAS_PER_RUN = 1000;
const LATENCY_SECONDS = QUICK ? 3 : 10;
const LATENCY_RATE = 50; // deltas per second per execution
const THROUGHPUT_GOAL = 0.5;
const P99_GOAL_MS = 25;
const PACED_RATE = 100; // deltas per second per execution
const PACED_RATIO_GOAL = 0.95;
const PACED_P99_GOAL_MS = 10;
const profileDir = PROFILE ? join(tmpdir(), `runledger-stream-profiles-${Date.now()}`) : undefined;

/** A few bytes each, all different, so order can be checked. */
const throughputText = (i: number) => `t${i} `;
const latencyText = (i: number) => `m${i} `;

async function withServer<T>(label: string, body: (server: ServerProcess) => Promise<T>): Promise<T> {
  // Every client is one SSE stream of the `default` tenant: room for all of them, whatever the default cap.
  const env = { SSE_MAX_STREAMS_PER_TENANT: String(Math.max(1000, 2 * EXECUTIONS)) };
  const server = await ServerProcess.start({ cpuProfileDir: profileDir && join(profileDir, label), env });
  try {
    return await body(server);
  } finally {
    await server.stop();
    if (server.output.trim()) console.log(`  server output:\n${server.output.trim().replace(/^/gm, '    | ')}`);
    if (profileDir) {
      const file = newestProfile(join(profileDir, label));
      if (file) for (const text of summarizeProfile(file)) console.log(`  ${text}`);
    }
  }
}

function cpuLines(cpu: ReturnType<CpuWindow['stop']>, deltas: number): void {
  console.log(
    line(
      'server CPU',
      `${fixed(cpu.serverCpuSeconds, 2)} s over ${fixed(cpu.wallSeconds, 2)} s = ${fixed((cpu.serverCpuSeconds / cpu.wallSeconds) * 100)}% of one core`,
    ),
  );
  // CPU per delta moves far less than wall-clock rates when other work shares the machine.
  console.log(line('server CPU per delta', `${fixed((cpu.serverCpuSeconds / deltas) * 1e6, 0)} µs (whole pipeline: HTTP, runner, store, SSE)`));
  console.log(line('bench-process CPU', `${fixed(cpu.benchCpuSeconds, 2)} s = ${fixed((cpu.benchCpuSeconds / cpu.wallSeconds) * 100)}% of one core`));
}

async function main(): Promise<void> {
  console.log(`Runledger stream benchmark${QUICK ? ' (--quick)' : ''}: ${EXECUTIONS} executions per phase, node ${process.version}, ${cpus().length} CPUs`);
  console.log(
    `Load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  if (process.env.BENCH_SERVER_MAIN) console.log(`Server build: ${process.env.BENCH_SERVER_MAIN} (BENCH_SERVER_MAIN)`);
  console.log('Server: node dist/main.js as a child process, fresh SQLite file per phase (WAL, synchronous=FULL), LOG_LEVEL=warn');
  const ok = PACED_ONLY ? await pacedPhase() : await allPhases();
  if (profileDir) console.log(`\nCPU profiles kept in ${profileDir}`);
  if (!ok) process.exitCode = 1;
}

async function allPhases(): Promise<boolean> {
  let ok = true;

  // 1. Baseline
  console.log('\n1. Baseline: raw better-sqlite3 inserts, WAL, synchronous=FULL, 50 rows per transaction');
  const base = sqliteBaseline({ rows: EXECUTIONS * DELTAS_PER_RUN, streams: EXECUTIONS, perTransaction: 50, text: throughputText });
  console.log(line('rows', `${int(base.rows)} delta-shaped rows (~${base.rowBytes} bytes of column data each) across ${EXECUTIONS} streams`));
  console.log(line('baseline', `${int(base.rowsPerSecond)} rows/s (${fixed(base.seconds, 2)} s)`));

  // 2. Throughput
  console.log(`\n2. Throughput: ${EXECUTIONS} executions × ${int(DELTAS_PER_RUN)} deltas as fast as they go, one SSE client each`);
  const throughputScript: ScriptStep[] = Array.from({ length: DELTAS_PER_RUN }, (_, i) => ({ type: 'text', text: throughputText(i) }));
  await withServer('throughput', async (server) => {
    let cpu!: CpuWindow;
    const result: PhaseResult = await runPhase(
      server.client,
      { label: 'throughput', executions: EXECUTIONS, script: throughputScript, measureLatency: false, timeoutMs: 100_000 },
      () => (cpu = new CpuWindow(server.pid)),
    );
    const usage = cpu.stop();
    const seconds = (result.endedAt - result.startedAt) / 1000;
    const rate = (EXECUTIONS * DELTAS_PER_RUN) / seconds;
    const ratio = rate / base.rowsPerSecond;
    console.log(line('wall time', `${fixed(seconds, 2)} s (first POST /v1/executions → last run.completed received)`));
    console.log(line('delta events stored/s', `${int(rate)} events/s  (${int(EXECUTIONS * DELTAS_PER_RUN)} / ${fixed(seconds, 2)} s)`));
    console.log(line('baseline', `${int(base.rowsPerSecond)} rows/s`));
    console.log(line('ratio to baseline', `${fixed(ratio, 2)}  (goal ≥ ${THROUGHPUT_GOAL}: ${ratio >= THROUGHPUT_GOAL ? 'met' : 'NOT met'})`));
    cpuLines(usage, EXECUTIONS * DELTAS_PER_RUN);
    ok = reportRuns(result.runs, DELTAS_PER_RUN) && ok;
  });
  if (FLAT_OUT_ONLY) return ok;

  // 3. Latency
  const texts = LATENCY_SECONDS * LATENCY_RATE;
  const gap = 1000 / LATENCY_RATE;
  console.log(
    `\n3. Latency: ${EXECUTIONS} executions × ${LATENCY_RATE} deltas/s for ${LATENCY_SECONDS} s (${texts} text steps, each followed by a ${gap} ms delay), one SSE client each`,
  );
  const latencyScript: ScriptStep[] = [];
  for (let i = 0; i < texts; i++) latencyScript.push({ type: 'text', text: latencyText(i) }, { type: 'delay', ms: gap });
  await withServer('latency', async (server) => {
    let cpu!: CpuWindow;
    const result = await runPhase(
      server.client,
      { label: 'latency', executions: EXECUTIONS, script: latencyScript, measureLatency: true, timeoutMs: (LATENCY_SECONDS + 60) * 1000 },
      () => (cpu = new CpuWindow(server.pid)),
    );
    const usage = cpu.stop();
    const { ms, live } = result.latencies;
    const all = Float64Array.from(ms).sort();
    const liveOnly = Float64Array.from(ms.filter((_, i) => live[i])).sort();
    const p99 = percentile(liveOnly, 99);
    const seconds = (result.endedAt - result.startedAt) / 1000;
    const summary = (sorted: Float64Array) =>
      `${fixed(percentile(sorted, 50), 0)} / ${fixed(percentile(sorted, 99), 0)} / ${fixed(sorted[sorted.length - 1], 0)} ms`;
    console.log("  Latency is measured from each delta event's occurredAt — stamped with the server's clock by the runner");
    console.log('  at the moment the provider emits the delta (ms precision, truncated) — to its receipt by the SSE client');
    console.log("  in the bench's receiver threads (Date.now() when its chunk arrived), same machine clock; so it covers the runner's queue,");
    console.log('  group commit + fsync + wake-up + store read + SSE write + loopback delivery (±1 ms).');
    console.log(
      line(
        'deltas received',
        `${int(all.length)} over ${fixed(seconds, 2)} s = ${int(all.length / seconds)} deltas/s (target ${int(EXECUTIONS * LATENCY_RATE)}/s)`,
      ),
    );
    console.log(line('latency p50 / p99 / max (live)', `${summary(liveOnly)}  (goal p99 ≤ ${P99_GOAL_MS} ms: ${p99 <= P99_GOAL_MS ? 'met' : 'NOT met'})`));
    console.log(line('', `live = the ${int(liveOnly.length)} deltas emitted after their SSE client attached`));
    console.log(
      line('  all deltas, incl. backlog', `${summary(all)}  (${int(all.length - liveOnly.length)} of them were emitted before their client attached)`),
    );
    cpuLines(usage, EXECUTIONS * texts);
    ok = reportRuns(result.runs, texts) && ok;
  });
  return (await pacedPhase()) && ok;
}

interface PacedFigures {
  rate: number;
  p50: number;
  p99: number;
  /** p99 of the live deltas received after the first second. */
  p99Settled: number;
  /** The last 201 of the burst of starts, in ms after the first POST. */
  lastCreatedMs: number;
  cpuPerDeltaUs: number;
  ok: boolean;
}

/** One paced run of N executions against `client` (whose process is `pid`): what was delivered, how late, at what CPU. */
async function paced(label: string, client: HttpClient, pid: number, script: ScriptStep[], texts: number): Promise<PacedFigures> {
  let cpu!: CpuWindow;
  const result = await runPhase(
    client,
    // Generous: on a busy machine the runs fall far behind their pace, on both servers alike.
    { label, executions: EXECUTIONS, script, measureLatency: true, timeoutMs: (LATENCY_SECONDS * 10 + 120) * 1000 },
    () => (cpu = new CpuWindow(pid)),
  );
  const usage = cpu.stop();
  const { ms, live } = result.latencies;
  const liveOnly = Float64Array.from(ms.filter((_, i) => live[i])).sort();
  const seconds = (result.endedAt - result.startedAt) / 1000;
  // The first second holds the burst of 100 starts, each carrying its whole script: apart, what
  // the starts cost the streams already running, and what streaming alone runs at.
  const settledFrom = result.latencies.at.reduce((a, b) => Math.min(a, b), Infinity) + 1000;
  const settled = Float64Array.from(ms.filter((_, i) => live[i] && result.latencies.at[i] > settledFrom)).sort();
  return {
    rate: ms.length / seconds,
    p50: percentile(liveOnly, 50),
    p99: percentile(liveOnly, 99),
    p99Settled: percentile(settled, 99),
    lastCreatedMs: Math.max(...result.created),
    cpuPerDeltaUs: (usage.serverCpuSeconds / (EXECUTIONS * texts)) * 1e6,
    ok: reportRuns(result.runs, texts),
  };
}

async function pacedPhase(): Promise<boolean> {
  const texts = LATENCY_SECONDS * PACED_RATE;
  const gap = 1000 / PACED_RATE;
  console.log(
    `\n4. Paced: ${EXECUTIONS} executions × ${PACED_RATE} deltas/s for ${LATENCY_SECONDS} s (asked: ${int(EXECUTIONS * PACED_RATE)} deltas/s), a bare node:http SSE server first, then Runledger`,
  );
  const script: ScriptStep[] = [];
  for (let i = 0; i < texts; i++) script.push({ type: 'text', text: latencyText(i) }, { type: 'delay', ms: gap });
  const bareServer = await startBareSse();
  let bare: PacedFigures;
  try {
    bare = await paced('bare', new HttpClient(bareServer.baseUrl), bareServer.pid, script, texts);
  } finally {
    await bareServer.stop();
  }
  const ours = await withServer('paced', (server) => paced('paced', server.client, server.pid, script, texts));
  const row = (f: PacedFigures) =>
    `${int(f.rate)} deltas/s, latency p50 ${fixed(f.p50, 0)} ms, p99 ${fixed(f.p99, 0)} ms (live; after the first second ${fixed(f.p99Settled, 0)} ms), ` +
    `server CPU ${fixed(f.cpuPerDeltaUs, 0)} µs per delta, last 201 at ${fixed(f.lastCreatedMs, 0)} ms`;
  const ratio = ours.rate / bare.rate;
  console.log(line('baseline: bare node:http SSE', row(bare)));
  console.log(line('Runledger', row(ours)));
  console.log(
    line(
      'ratio to baseline',
      `${fixed(ratio, 3)} (goal ≥ ${PACED_RATIO_GOAL}: ${ratio >= PACED_RATIO_GOAL ? 'met' : 'NOT met'}); p99 goal ≤ ${PACED_P99_GOAL_MS} ms: ${ours.p99 <= PACED_P99_GOAL_MS ? 'met' : 'NOT met'}`,
    ),
  );
  return bare.ok && ours.ok;
}

void main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
