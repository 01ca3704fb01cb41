/**
 * Soak: the compiled server under a steady load for minutes, watching memory and errors.
 *
 *   npm run soak -- --minutes 10     500 idle SSE streams + 40 starts/s in one conversation
 *   npm run soak -- --minutes 1      a quick run
 *   (--rate <starts/s>, --streams <n> change the load)
 *
 * Every 30 s: RSS, starts and their latency, errors. Goals: zero errors, and RSS growth under
 * 10 % after the first minute: the median of the samples from 1 to 2 minutes against the median
 * of the last three (a run under 3 minutes prints the growth without judging it).
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { processCpuSeconds } from './lib/cpu';
import { fixed, int, percentile } from './lib/format';
import { ServerProcess } from './lib/server';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg('--minutes', 10);
const RATE = arg('--rate', 40);
const STREAMS = arg('--streams', 500);
const SAMPLE_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function main(): Promise<void> {
  console.log(`Soak: ${STREAMS} idle SSE streams + ${RATE} starts/s in one conversation for ${MINUTES} min; node ${process.version}, ${cpus().length} CPUs`);
  console.log(
    `load average ${loadavg()
      .map((n) => fixed(n, 2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  const server = await ServerProcess.start({ env: { SSE_MAX_STREAMS_PER_TENANT: String(STREAMS + 100) } });
  const { client } = server;
  const errors: string[] = [];
  const error = (text: string) => {
    if (errors.length < 1000) errors.push(text);
  };
  let ending = false;

  // Idle streams: runs waiting on an approval nobody gives, each followed by one SSE client.
  const idle = (await client.json('POST', '/v1/conversations', { title: 'idle' })).body.id;
  let open = 0;
  for (let i = 0; i < STREAMS; i++) {
    const res = await client.json('POST', '/v1/executions', {
      conversationId: idle,
      provider: 'scripted',
      input: { text: 'wait' },
      config: { script: [{ type: 'action', kind: 'approval', prompt: 'never answered' }] },
    });
    if (res.status !== 201) throw new Error(`idle run: ${res.status} ${JSON.stringify(res.body)}`);
    client
      .sse(
        `/v1/executions/${res.body.id}/events`,
        () => {},
        () => (open += 1),
      )
      .then(
        () => ending || error(`SSE stream ${res.body.id} ended early`),
        (e: Error) => ending || error(`SSE stream ${res.body.id}: ${e.message}`),
      )
      .finally(() => (open -= 1));
  }
  while (open < STREAMS) await new Promise((r) => setTimeout(r, 50));
  console.log(`  ${open} idle SSE streams open; RSS ${fixed(rssMiB(server.pid), 0)} MiB\n`);

  const conversationId = (await client.json('POST', '/v1/conversations', { title: 'soak' })).body.id;
  let sent = 0;
  let started = 0;
  let inFlight = 0;
  let window: number[] = [];
  const startOne = async (n: number) => {
    inFlight += 1;
    const began = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error('timed out')), REQUEST_TIMEOUT_MS)));
      const res = await Promise.race([
        client.json('POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: `soak run ${n}` } }),
        timeout,
      ]);
      if (res.status === 201) started += 1;
      else error(`POST /v1/executions: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    } catch (e) {
      error(`POST /v1/executions: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
      inFlight -= 1;
      window.push(performance.now() - began);
    }
  };

  // Open loop: starts are due at RATE per second whatever the answers do, as real clients would.
  const t0 = performance.now();
  const pacer = setInterval(() => {
    const due = Math.floor(((performance.now() - t0) / 1000) * RATE);
    while (sent < due) void startOne(sent++);
  }, 5);
  const samples: { at: number; rss: number }[] = [];
  let cpuBefore = processCpuSeconds(server.pid);
  console.log('   time   RSS MiB  starts   in flight  start p50 / p99 ms   server CPU  errors');
  for (let at = SAMPLE_MS; at <= MINUTES * 60_000; at += SAMPLE_MS) {
    await new Promise((r) => setTimeout(r, t0 + at - performance.now()));
    const rss = rssMiB(server.pid);
    samples.push({ at, rss });
    const sorted = window.sort((a, b) => a - b);
    window = [];
    const cpu = processCpuSeconds(server.pid);
    const busy = ((cpu - cpuBefore) / (SAMPLE_MS / 1000)) * 100;
    cpuBefore = cpu;
    console.log(
      `  ${fixed(at / 60_000, 1).padStart(4)} min  ${fixed(rss, 0).padStart(6)}  ${int(started).padStart(7)}  ${String(inFlight).padStart(9)}` +
        `  ${`${fixed(percentile(sorted, 50), 1)} / ${fixed(percentile(sorted, 99), 1)}`.padStart(17)}  ${fixed(busy, 0).padStart(8)}%  ${String(errors.length).padStart(6)}`,
    );
  }
  clearInterval(pacer);
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));

  const runtime = (await client.json('GET', '/v1/runtime')).body;
  ending = true;
  await server.stop();
  if (server.output.trim()) console.log(`\n  server output:\n${server.output.trim().slice(-3000).replace(/^/gm, '    | ')}`);
  // One sample can land on a GC peak or trough: medians of the minute after the first and of the last three samples.
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const early = samples.filter((s) => s.at >= 60_000 && s.at <= 120_000);
  // The goal is about growth after the first minute, which a run under 3 minutes cannot show.
  const judged = early.length >= 2 && samples.length >= early.length + 3;
  const reference = judged ? early : samples.slice(0, 1);
  const late = samples.slice(Math.max(reference.length, samples.length - 3));
  const from = median(reference.map((s) => s.rss));
  const to = median(late.map((s) => s.rss));
  const growth = (to - from) / from;
  const last = samples[samples.length - 1];
  const span = (xs: typeof samples) => `${fixed(xs[0].at / 60_000, 1)}–${fixed(xs[xs.length - 1].at / 60_000, 1)} min`;
  console.log(
    `\n  starts: ${int(started)} of ${int(sent)} sent (${fixed(started / (last.at / 1000), 1)}/s); projections at the end: ${JSON.stringify(runtime.projections)}`,
  );
  console.log(`  errors: ${errors.length} (goal 0: ${errors.length === 0 ? 'met' : 'NOT met'})`);
  for (const text of [...new Set(errors)].slice(0, 10)) console.log(`    ${text}`);
  console.log(
    `  RSS (median) ${fixed(from, 0)} MiB over ${span(reference)} → ${fixed(to, 0)} MiB over ${span(late)}: ${growth >= 0 ? '+' : ''}${fixed(growth * 100, 1)} %` +
      ` (goal < 10 %: ${judged ? (growth < 0.1 ? 'met' : 'NOT met') : 'not judged, the run is too short: it needs 3 minutes or more'}); peak ${fixed(Math.max(...samples.map((s) => s.rss)), 0)} MiB`,
  );
  if (errors.length > 0 || (judged && growth >= 0.1)) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    process.stderr.write(`soak failed: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
