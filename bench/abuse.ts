/**
 * Fairness benchmark: one tenant streaming flat out must not starve another tenant's small
 * executions, nor the probes. The compiled server (`node dist/main.js`) runs as a child process
 * with two tenants (API_KEYS) on a fresh SQLite file (WAL, synchronous=FULL).
 *
 *   npm run bench:abuse                     flood of 6 executions × 60,000 deltas (~1–2 minutes)
 *   npm run bench:abuse -- --quick          6 × 6,000 deltas, fewer victim runs (smoke test)
 *   npm run bench:abuse -- --script         the flood as config.script of text steps, with
 *                                           BODY_LIMIT_BYTES raised to 8 MiB for it (the default
 *                                           1 MiB takes 60,000 words as input.text, not as a script)
 *   npm run bench:abuse -- --no-flood-readers   no SSE clients on the flood's executions
 *   npm run bench:abuse -- --profile        also writes a V8 CPU profile of the server
 *
 * 1. Baseline: the victim tenant runs small scripted executions (5 text steps), 2 at a time,
 *    each timed from POST /v1/executions to its terminal event over SSE; meanwhile a worker
 *    thread GETs /health/live every 20 ms.
 * 2. Flood: the flood tenant starts 6 executions of 60,000 deltas each at once (by default
 *    60,000 words of input.text, streamed back one word per delta; an SSE client on each, in
 *    another worker thread), and the victim repeats the same measurements until the flood ends.
 * Printed: both phases, the ratios flood/baseline, the server's own event-loop lag and group
 * commit sizes (from /metrics), and the flood's throughput.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { FloodData, FloodMessage, ProbeMessage, startWorker } from './lib/abuse-workers';
import { CpuWindow } from './lib/cpu';
import { newestProfile, summarizeProfile } from './lib/cpu-profile';
import { fixed, int, line, percentile } from './lib/format';
import { HttpClient } from './lib/http-client';
import { ServerProcess } from './lib/server';
import { sqliteBaseline } from './lib/sqlite-baseline';
import { RunObservation } from './lib/run-observation';
import { getText } from './lib/timing';

const args = new Set(process.argv.slice(2));
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
const MODE: FloodData['mode'] = args.has('--script') ? 'script' : 'words';
const READERS = !args.has('--no-flood-readers');
const FLOOD_EXECUTIONS = 6;
const FLOOD_DELTAS = QUICK ? 6_000 : 60_000;
const FLOOD_MAX_SECONDS = QUICK ? 90 : 400;
const VICTIM_STEPS = 5;
const VICTIM_CONCURRENCY = 2;
const BASELINE_RUNS = QUICK ? 30 : 100;
const VICTIM_MAX_RUNS = 5_000;
const PROBE_INTERVAL_MS = 20;
const KEYS = { flood: 'flood-key-0123456789abcdef', victim: 'victim-key-0123456789abcdef' };
const profileDir = PROFILE ? join(tmpdir(), `runledger-abuse-profiles-${Date.now()}`) : undefined;

const victimTexts = Array.from({ length: VICTIM_STEPS }, (_, i) => `v${i} `);
const victimScript = victimTexts.map((text) => ({ type: 'text', text }));

interface VictimResult {
  ms: number[];
  /** The POST /v1/executions alone (its 201, after run.queued is committed). */
  postMs: number[];
  problems: string[];
}

/** One victim execution, timed from its POST to its terminal event over SSE (its conversation made beforehand). */
async function victimRun(client: HttpClient, index: number, result: VictimResult): Promise<void> {
  const conversation = await client.json('POST', '/v1/conversations', {});
  if (conversation.status !== 201) throw new Error(`victim POST /v1/conversations: ${conversation.status}`);
  const started = performance.now();
  const response = await client.json('POST', '/v1/executions', {
    conversationId: conversation.body.id,
    provider: 'scripted',
    input: { text: `victim ${index}` },
    config: { script: victimScript },
  });
  if (response.status !== 201) throw new Error(`victim POST /v1/executions: ${response.status} ${JSON.stringify(response.body)}`);
  result.postMs.push(performance.now() - started);
  const run = new RunObservation(index, victimTexts, null);
  run.id = response.body.id;
  await client.sse(`/v1/executions/${run.id}/events`, (message, at) => run.onMessage(message, at));
  result.ms.push(performance.now() - started);
  run.finish();
  result.problems.push(...run.problems.map((p) => `victim execution ${run.id}: ${p}`));
}

/** `VICTIM_CONCURRENCY` loops of victim runs, each loop one run at a time, until `done()` or the run bound. */
async function victimLoad(client: HttpClient, done: () => boolean, maxRuns: number): Promise<VictimResult> {
  const result: VictimResult = { ms: [], postMs: [], problems: [] };
  let next = 0;
  await Promise.all(
    Array.from({ length: VICTIM_CONCURRENCY }, async () => {
      while (!done() && next < maxRuns) await victimRun(client, next++, result);
    }),
  );
  return result;
}

/** The probe's samples since its last window. */
function probeWindow(probe: Worker): Promise<ProbeMessage> {
  return new Promise((ok) => {
    probe.once('message', ok);
    probe.postMessage('window');
  });
}

/** What /metrics says about the window since the last scrape (prom-client resets the event-loop histogram on each scrape). */
async function scrape(client: HttpClient): Promise<Map<string, number>> {
  const { text } = await getText(client, '/metrics');
  const values = new Map<string, number>();
  for (const row of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? ([0-9.e+-]+)$/.exec(row);
    if (match) values.set(match[1], (values.get(match[1]) ?? 0) + Number(match[2]));
  }
  return values;
}

interface PhaseFigures {
  victim: VictimResult;
  probe: ProbeMessage;
  loopP99Ms: number;
  loopMaxMs: number;
  commits: number;
  eventsPerCommit: number;
  serverCpuPercent: number;
  benchLoopMaxMs: number;
}

async function measured(server: ServerProcess, probe: Worker, load: () => Promise<VictimResult>): Promise<PhaseFigures> {
  const before = await scrape(server.client);
  await probeWindow(probe);
  const cpu = new CpuWindow(server.pid);
  const benchLoop = monitorEventLoopDelay({ resolution: 10 });
  benchLoop.enable();
  const victim = await load();
  benchLoop.disable();
  const usage = cpu.stop();
  const probed = await probeWindow(probe);
  const after = await scrape(server.client);
  const commits = (after.get('runledger_group_commit_events_count') ?? 0) - (before.get('runledger_group_commit_events_count') ?? 0);
  const events = (after.get('runledger_group_commit_events_sum') ?? 0) - (before.get('runledger_group_commit_events_sum') ?? 0);
  return {
    victim,
    probe: probed,
    loopP99Ms: (after.get('nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1000,
    loopMaxMs: (after.get('nodejs_eventloop_lag_max_seconds') ?? NaN) * 1000,
    commits,
    eventsPerCommit: commits > 0 ? events / commits : 0,
    serverCpuPercent: (usage.serverCpuSeconds / usage.wallSeconds) * 100,
    benchLoopMaxMs: benchLoop.max / 1e6,
  };
}

function summary(values: number[]): { p50: number; p99: number; max: number; n: number } {
  const sorted = Float64Array.from(values).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1], n: sorted.length };
}

function compare(label: string, base: number, flood: number, unit = 'ms', digits = 1): void {
  console.log(
    `  ${label.padEnd(40)} ${`${fixed(base, digits)} ${unit}`.padStart(12)} ${`${fixed(flood, digits)} ${unit}`.padStart(12)} ${`${fixed(flood / base, 2)}×`.padStart(9)}`,
  );
}

/** Runs the flood in a worker; resolves with its end, printing its progress every second. */
function runFlood(server: ServerProcess, onPosting: () => void): Promise<Extract<FloodMessage, { type: 'done' }> & { postMs: number[] }> {
  const worker = startWorker({
    role: 'flood',
    baseUrl: server.baseUrl,
    apiKey: KEYS.flood,
    executions: FLOOD_EXECUTIONS,
    deltas: FLOOD_DELTAS,
    mode: MODE,
    readers: READERS,
    maxSeconds: FLOOD_MAX_SECONDS,
  });
  const t0 = performance.now();
  let postMs: number[] = [];
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the flood did not finish within ${FLOOD_MAX_SECONDS} s`)), FLOOD_MAX_SECONDS * 1000);
    worker.on('error', (error) => (clearTimeout(timer), fail(error)));
    worker.on('message', (message: FloodMessage) => {
      if (message.type === 'posting') onPosting();
      else if (message.type === 'started') postMs = message.postMs;
      else if (message.type === 'progress') {
        const total = FLOOD_EXECUTIONS * FLOOD_DELTAS;
        process.stdout.write(
          `  [flood ${fixed((performance.now() - t0) / 1000).padStart(5)}s] ${READERS ? 'deltas received' : 'polling'} ${int(message.deltas)}/${int(total)}, runs ended ${message.ended}/${FLOOD_EXECUTIONS}\n`,
        );
      } else if (message.type === 'done') {
        clearTimeout(timer);
        void worker.terminate();
        ok({ ...message, postMs });
      }
    });
  });
}

async function main(): Promise<void> {
  console.log(`Runledger abuse benchmark${QUICK ? ' (--quick)' : ''}: fairness between two tenants; node ${process.version}, ${cpus().length} CPUs`);
  console.log(
    `Load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  const flood = `${FLOOD_EXECUTIONS} executions × ${int(FLOOD_DELTAS)} deltas, ${MODE === 'words' ? 'input.text of that many words (no script; MAX_INPUT_TEXT_BYTES=768 KiB)' : 'config.script of text steps (BODY_LIMIT_BYTES and MAX_CONFIG_BYTES 8 MiB)'}, ${READERS ? 'an SSE client on each' : 'no SSE clients'}`;
  console.log(`Flood tenant: ${flood}`);
  console.log(`Victim tenant: executions of ${VICTIM_STEPS} text steps, ${VICTIM_CONCURRENCY} at a time, POST /v1/executions → terminal event over SSE`);
  console.log(`Probe: GET /health/live every ${PROBE_INTERVAL_MS} ms from a worker thread (one at a time)`);

  const base = sqliteBaseline({ rows: 60_000, streams: FLOOD_EXECUTIONS, perTransaction: 50, text: (i) => `f0.${i} ` });
  const env: Record<string, string> = { API_KEYS: `flood:${KEYS.flood},victim:${KEYS.victim}` };
  // The flood's requests are far over the default bounds of input and config (256 KiB each).
  if (MODE === 'words') Object.assign(env, { MAX_INPUT_TEXT_BYTES: String(768 * 1024), MAX_EVENT_BYTES: String(2 * 1024 * 1024) });
  if (MODE === 'script') {
    Object.assign(env, { BODY_LIMIT_BYTES: String(8 * 1024 * 1024), MAX_CONFIG_BYTES: String(8 * 1024 * 1024), MAX_EVENT_BYTES: String(9 * 1024 * 1024) });
  }
  const server = await ServerProcess.start({ env, cpuProfileDir: profileDir });
  const victim = new HttpClient(server.baseUrl, { authorization: `Bearer ${KEYS.victim}` });
  const probe = startWorker({ role: 'probe', baseUrl: server.baseUrl, intervalMs: PROBE_INTERVAL_MS, maxSeconds: FLOOD_MAX_SECONDS + 300 });
  let ok = true;
  try {
    await victimLoad(victim, () => false, 10); // warm-up, not counted

    console.log(`\n1. Baseline: ${BASELINE_RUNS} victim executions, no flood`);
    const baseline = await measured(server, probe, () => victimLoad(victim, () => false, BASELINE_RUNS));

    console.log(`\n2. Flood: ${flood}; the victim runs until the flood ends`);
    let floodDone = false;
    let posting!: () => void;
    const postingSeen = new Promise<void>((resolve) => (posting = resolve));
    const flooded = runFlood(server, posting).finally(() => (floodDone = true));
    flooded.catch(() => undefined);
    await Promise.race([postingSeen, flooded]);
    const during = await measured(server, probe, () => victimLoad(victim, () => floodDone, VICTIM_MAX_RUNS));
    const floodResult = await flooded;

    const b = summary(baseline.victim.ms);
    const f = summary(during.victim.ms);
    const bp = summary(baseline.probe.ms);
    const fp = summary(during.probe.ms);
    console.log(`\n  ${''.padEnd(40)} ${'baseline'.padStart(12)} ${'flood'.padStart(12)} ${'ratio'.padStart(9)}`);
    console.log(`  victim executions                        ${String(b.n).padStart(12)} ${String(f.n).padStart(12)}`);
    compare('victim start → end p50', b.p50, f.p50);
    compare('victim start → end p99', b.p99, f.p99);
    compare('victim start → end max', b.max, f.max);
    const bPost = summary(baseline.victim.postMs);
    const fPost = summary(during.victim.postMs);
    compare('victim POST /v1/executions p50', bPost.p50, fPost.p50);
    compare('victim POST /v1/executions p99', bPost.p99, fPost.p99);
    console.log(`  /health/live probes                      ${String(bp.n).padStart(12)} ${String(fp.n).padStart(12)}`);
    compare('/health/live p50', bp.p50, fp.p50);
    compare('/health/live p99', bp.p99, fp.p99);
    compare('/health/live worst', bp.max, fp.max);
    const over = (ms: number[], limit: number) => ms.filter((x) => x > limit).length;
    console.log(
      `  probes over 100 / 500 ms                 ${`${over(baseline.probe.ms, 100)} / ${over(baseline.probe.ms, 500)}`.padStart(12)} ${`${over(during.probe.ms, 100)} / ${over(during.probe.ms, 500)}`.padStart(12)}`,
    );
    console.log(`  probe failures                           ${String(baseline.probe.failures).padStart(12)} ${String(during.probe.failures).padStart(12)}`);
    compare('server event-loop lag p99 (/metrics)', baseline.loopP99Ms, during.loopP99Ms);
    compare('server event-loop lag max (/metrics)', baseline.loopMaxMs, during.loopMaxMs);
    compare('group commits', baseline.commits, during.commits, '', 0);
    compare('events per group commit (mean)', baseline.eventsPerCommit, during.eventsPerCommit, '');
    compare('server CPU (% of one core)', baseline.serverCpuPercent, during.serverCpuPercent, '%', 0);
    console.log(
      line(
        'bench main-thread loop delay max',
        `${fixed(baseline.benchLoopMaxMs)} / ${fixed(during.benchLoopMaxMs)} ms (baseline / flood; the client's own share of the figures)`,
      ),
    );

    const seconds = (floodResult.endedAt - floodResult.startedAt) / 1000;
    const rate = floodResult.deltas / seconds;
    console.log(line('\n  flood throughput', `${int(rate)} deltas/s (${int(floodResult.deltas)} in ${fixed(seconds, 2)} s, first POST → last terminal event)`));
    console.log(
      line(
        'raw SQLite baseline',
        `${int(base.rowsPerSecond)} rows/s (better-sqlite3, 50 rows per transaction, FULL): ratio ${fixed(rate / base.rowsPerSecond, 2)}`,
      ),
    );
    console.log(line('flood POST /v1/executions', `${floodResult.postMs.map((ms) => fixed(ms, 0)).join(', ')} ms`));
    const problems = [...baseline.victim.problems, ...during.victim.problems, ...floodResult.problems];
    if (floodResult.lastSequences.some((s) => s !== FLOOD_DELTAS + 4))
      problems.push(`flood last sequences ${floodResult.lastSequences.join(', ')}, expected ${FLOOD_DELTAS + 4}`);
    if (problems.length === 0)
      console.log(
        line(
          'checks',
          `OK: every victim run got its ${VICTIM_STEPS} deltas in order then run.completed; every flood run completed${READERS ? ' with every delta in order' : ''}`,
        ),
      );
    else {
      ok = false;
      console.log(line('checks', `FAILED: ${problems.length} problems`));
      for (const p of problems.slice(0, 10)) console.log(`    ${p}`);
    }
  } finally {
    probe.postMessage('stop');
    await probe.terminate();
    victim.close();
    await server.stop();
    if (server.output.trim()) console.log(`  server output:\n${server.output.trim().slice(-3000).replace(/^/gm, '    | ')}`);
    if (profileDir) {
      const file = newestProfile(profileDir);
      if (file) for (const text of summarizeProfile(file)) console.log(`  ${text}`);
      console.log(`  CPU profile kept in ${profileDir}`);
    }
  }
  if (!ok) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
