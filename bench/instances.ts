/**
 * One instance against three on one PostgreSQL: the streaming workload of bench/stream.ts, run
 * (a) all on one instance and (b) spread over three, in one run on one throw-away cluster.
 *
 *   npm run bench:instances              100 executions per phase (~2–3 minutes)
 *   npm run bench:instances -- --quick   10 executions, shorter latency phase (smoke test)
 *   npm run bench:instances -- --profile also writes a V8 CPU profile per server and prints its
 *                                        top self-time functions
 *   npm run bench:instances -- --statements  loads pg_stat_statements and prints, per phase, the
 *                                        statements that used most of PostgreSQL's time
 *
 * In (b) execution i starts on instance i mod 3 (which owns and runs it) and its SSE client reads
 * from instance i+1 mod 3, so every delta reaches its client through PostgreSQL (NOTIFY wake-up,
 * frontier read) rather than from the owner's memory. Each phase gets a fresh database, fsync on.
 * 1. Throughput: N executions × 1,000 deltas as fast as they go; delta events stored per second.
 * 2. Latency: N executions × 50 deltas/s for 10 s; occurredAt → SSE receipt.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, startCluster } from '../test/support/postgres-cluster';
import { onExit } from './lib/cleanup';
import { CpuWindow, ownCpuSeconds, processTreeCpuSeconds } from './lib/cpu';
import { newestProfile, summarizeProfile } from './lib/cpu-profile';
import { fixed, int, line, percentile } from './lib/format';
import { STATEMENT_SETTINGS, topStatements, trackStatements } from './lib/pg-statements';
import { ServerProcess } from './lib/server';
import { PhaseResult, ScriptStep, runPhase, reportRuns } from './lib/streaming-runs';

const QUICK = process.argv.includes('--quick');
const PROFILE = process.argv.includes('--profile');
const STATEMENTS = process.argv.includes('--statements');
const profileDir = PROFILE ? join(tmpdir(), `runledger-instances-profiles-${Date.now()}`) : undefined;
const EXECUTIONS = QUICK ? 10 : 100;
const DELTAS_PER_RUN = 1000;
const LATENCY_SECONDS = QUICK ? 3 : 10;
const LATENCY_RATE = 50; // deltas per second per execution
const INSTANCES = 3;

const throughputScript: ScriptStep[] = Array.from({ length: DELTAS_PER_RUN }, (_, i) => ({ type: 'text', text: `t${i} ` }));
const latencyScript: ScriptStep[] = [];
for (let i = 0; i < LATENCY_SECONDS * LATENCY_RATE; i++) latencyScript.push({ type: 'text', text: `m${i} ` }, { type: 'delay', ms: 1000 / LATENCY_RATE });
const textsIn = (script: ScriptStep[]) => script.filter((s) => s.type === 'text').length;

interface Outcome {
  rate: number;
  p50: number;
  p99: number;
  serverCpu: number;
  ok: boolean;
}

/** Fresh database, `instances` servers on it, one phase; every figure printed, the key ones returned. */
async function phase(adminUrl: string, postmaster: number, label: string, instances: number, script: ScriptStep[], latency: boolean): Promise<Outcome> {
  const databaseUrl = await createDatabase(adminUrl, label);
  if (STATEMENTS) await trackStatements(databaseUrl);
  const env = { SSE_MAX_STREAMS_PER_TENANT: String(Math.max(1000, 2 * EXECUTIONS)) };
  // The first start creates the schema; the others then start together, as in test/multi-instance.
  const cpuProfileDir = (k: number) => profileDir && join(profileDir, label, `instance-${k + 1}`);
  const servers = [await ServerProcess.start({ databaseUrl, env, cpuProfileDir: cpuProfileDir(0) })];
  servers.push(
    ...(await Promise.all(Array.from({ length: instances - 1 }, (_, k) => ServerProcess.start({ databaseUrl, env, cpuProfileDir: cpuProfileDir(k + 1) })))),
  );
  const route = instances === 1 ? undefined : (i: number) => ({ start: servers[i % instances].client, stream: servers[(i + 1) % instances].client });
  let windows: CpuWindow[] = [];
  let pgStart = 0;
  let result: PhaseResult;
  let usages: ReturnType<CpuWindow['stop']>[];
  let pgCpu: number;
  try {
    const timeoutMs = latency ? (LATENCY_SECONDS + 120) * 1000 : 300_000;
    result = await runPhase(servers[0].client, { label, executions: EXECUTIONS, script, measureLatency: latency, timeoutMs, route }, () => {
      windows = servers.map((s) => new CpuWindow(s.pid));
      pgStart = processTreeCpuSeconds(postmaster);
    });
    // Read before the servers stop: /proc forgets them.
    usages = windows.map((w) => w.stop());
    pgCpu = processTreeCpuSeconds(postmaster) - pgStart;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const [k, s] of servers.entries()) if (s.output.trim()) console.log(`  instance ${k + 1} output:\n${s.output.trim().replace(/^/gm, '    | ')}`);
    for (const k of servers.keys()) {
      const dir = cpuProfileDir(k);
      const file = dir && newestProfile(dir);
      if (file) for (const text of summarizeProfile(file, 15)) console.log(`  instance ${k + 1} ${text}`);
    }
  }
  if (STATEMENTS) for (const text of await topStatements(databaseUrl, 8)) console.log(`  ${text}`);
  const texts = textsIn(script);
  const deltas = EXECUTIONS * texts;
  const seconds = (result.endedAt - result.startedAt) / 1000;
  const rate = deltas / seconds;
  const live = Float64Array.from(result.latencies.ms.filter((_, i) => result.latencies.live[i])).sort();
  console.log(line('wall time', `${fixed(seconds, 2)} s (first POST /v1/executions → last run.completed received)`));
  if (latency) {
    const all = Float64Array.from(result.latencies.ms).sort();
    console.log(line('deltas received', `${int(all.length)} = ${int(all.length / seconds)} deltas/s (target ${int(EXECUTIONS * LATENCY_RATE)}/s)`));
    console.log(
      line(
        'latency p50 / p99 / max (live)',
        `${fixed(percentile(live, 50), 0)} / ${fixed(percentile(live, 99), 0)} / ${fixed(live[live.length - 1], 0)} ms  (${int(live.length)} deltas emitted after their client attached)`,
      ),
    );
    console.log(line('  all, incl. backlog', `${fixed(percentile(all, 50), 0)} / ${fixed(percentile(all, 99), 0)} / ${fixed(all[all.length - 1], 0)} ms`));
  } else {
    console.log(line('delta events stored/s', `${int(rate)} events/s  (${int(deltas)} / ${fixed(seconds, 2)} s)`));
  }
  const wall = usages[0].wallSeconds;
  const serverCpu = usages.reduce((sum, u) => sum + u.serverCpuSeconds, 0);
  usages.forEach((u, k) =>
    console.log(line(`instance ${k + 1} CPU`, `${fixed(u.serverCpuSeconds, 2)} s = ${fixed((u.serverCpuSeconds / wall) * 100)}% of one core`)),
  );
  // On 2 shared cores the instances, PostgreSQL and the clients compete: CPU per delta moves less than rates.
  console.log(
    line('all instances', `${fixed(serverCpu, 2)} s = ${fixed((serverCpu / wall) * 100)}% of one core, ${fixed((serverCpu / deltas) * 1e6, 0)} µs per delta`),
  );
  console.log(line('PostgreSQL CPU', `${fixed(pgCpu, 2)} s = ${fixed((pgCpu / wall) * 100)}% of one core, ${fixed((pgCpu / deltas) * 1e6, 0)} µs per delta`));
  console.log(line('bench-process CPU', `${fixed(usages[0].benchCpuSeconds, 2)} s = ${fixed((usages[0].benchCpuSeconds / wall) * 100)}% of one core`));
  const ok = reportRuns(result.runs, texts);
  return { rate, p50: percentile(live, 50), p99: percentile(live, 99), serverCpu, ok };
}

async function main(): Promise<void> {
  console.log(
    `Runledger instances benchmark${QUICK ? ' (--quick)' : ''}: ${EXECUTIONS} executions per phase on 1 and on ${INSTANCES} instances, node ${process.version}, ${cpus().length} CPUs`,
  );
  console.log(
    `Load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  const cluster = await startCluster({ fsync: true, settings: STATEMENTS ? STATEMENT_SETTINGS : {} });
  onExit(() => cluster.destroySync());
  // The postmaster's pid heads postmaster.pid; its backends are its children.
  const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  console.log(`PostgreSQL: a throw-away cluster, fsync on, fresh database per phase; servers: node dist/main.js, EVENT_STORE=postgres, LOG_LEVEL=warn`);
  const bench0 = ownCpuSeconds();
  const outcomes: Record<string, Outcome> = {};
  const latencyTexts = textsIn(latencyScript);
  for (const [name, script, latency, title] of [
    ['throughput', throughputScript, false, `${EXECUTIONS} executions × ${int(DELTAS_PER_RUN)} deltas as fast as they go`],
    ['latency', latencyScript, true, `${EXECUTIONS} executions × ${LATENCY_RATE} deltas/s for ${LATENCY_SECONDS} s (${latencyTexts} text steps)`],
  ] as const) {
    for (const instances of [1, INSTANCES]) {
      const where = instances === 1 ? '(a) all on one instance' : `(b) starts round-robin over ${INSTANCES} instances, each SSE client on the next one`;
      console.log(`\n${name}: ${title}, ${where}`);
      outcomes[`${name}${instances}`] = await phase(cluster.adminUrl, postmaster, `${name}_${instances}`, instances, script as ScriptStep[], latency);
    }
  }
  await cluster.destroy();

  const t1 = outcomes.throughput1,
    t3 = outcomes[`throughput${INSTANCES}`];
  const l1 = outcomes.latency1,
    l3 = outcomes[`latency${INSTANCES}`];
  const row = (label: string, a: number, b: number, digits: number, unit: string) =>
    console.log(
      `  ${label.padEnd(30)} ${`${fixed(a, digits)}${unit}`.padStart(12)} ${`${fixed(b, digits)}${unit}`.padStart(14)} ${fixed(b / a, 2).padStart(9)}`,
    );
  console.log(`\nSummary (bench process used ${fixed(ownCpuSeconds() - bench0, 1)} s CPU in all)`);
  console.log(`  ${''.padEnd(30)} ${'(a) 1'.padStart(12)} ${`(b) ${INSTANCES}`.padStart(14)} ${'(b)/(a)'.padStart(9)}`);
  row('deltas stored/s', t1.rate, t3.rate, 0, '');
  row('throughput: server CPU', t1.serverCpu, t3.serverCpu, 1, ' s');
  row('latency p50 (live)', l1.p50, l3.p50, 0, ' ms');
  row('latency p99 (live)', l1.p99, l3.p99, 0, ' ms');
  row('latency: server CPU', l1.serverCpu, l3.serverCpu, 1, ' s');
  if (!Object.values(outcomes).every((o) => o.ok)) process.exitCode = 1;
}

void main().catch((error) => {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
