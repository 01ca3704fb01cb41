/**
 * Rebuild benchmark: the projections replayed from a log of ~1,000,000 events (generated through
 * the SQLite adapter, not HTTP), against a raw better-sqlite3 read of the same events; and
 * whether appends and replays stay flat from 10,000 to 1,000,000 stored events.
 *
 *   npm run bench:rebuild                         10,000 executions × 100 events (+1,000 conversations)
 *   npm run bench:rebuild -- --executions 2000    a quicker run (~200,000 events)
 *   npm run bench:rebuild -- --profile            also a CPU profile of the rebuild, top functions printed
 *
 * Goals: rebuild ≥ 100,000 events/s and ≥ 0.25 × the raw read; append and replay at the large
 * log within 15 % of the same at 10,000 events.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayInto } from '../src/cli/replay-into';
import { rebuildProjections } from '../src/cli/rebuild';
import { EventStoreGateway } from '../src/event-store/event-store-gateway';
import { SqliteEventStore } from '../src/event-store/sqlite/sqlite-event-store';
import { openReadModelDatabase } from '../src/read-models/read-model-database';
import { PROJECTIONS } from '../src/read-models/projections';
import { onExit } from './lib/cleanup';
import { ownCpuSeconds } from './lib/cpu';
import { summarizeProfile } from './lib/cpu-profile';
import { fixed, int, line } from './lib/format';
import { generateLog } from './lib/generate-log';
import { profiled } from './lib/profile-in-process';
import { rawReadAll } from './lib/raw-read';
import { measureScale } from './lib/scale-checks';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const EXECUTIONS = Number(arg('--executions') ?? 10_000);
const SMALL_EXECUTIONS = 100;
const ROUNDS = Number(arg('--rounds') ?? 6);
const PROFILE = process.argv.includes('--profile');
const RATE_GOAL = 100_000;
const RATIO_GOAL = 0.25;

const dir = mkdtempSync(join(tmpdir(), 'runledger-bench-rebuild-'));
onExit(() => rmSync(dir, { recursive: true, force: true }));
const profileDir = PROFILE ? join(dir, 'profiles') : undefined;
if (profileDir) mkdirSync(profileDir);

async function generate(path: string, executions: number): Promise<{ events: number; ids: string[] }> {
  const store = SqliteEventStore.open(path, { synchronous: 'NORMAL' });
  const started = performance.now();
  const ids = await generateLog(store, executions, (done) => {
    if (done % 2000 === 0 && process.stderr.isTTY) process.stderr.write(`  generating: ${int(done)}/${int(executions)} executions\r`);
  });
  const events = await store.headPosition();
  await store.close();
  console.log(line(`generated ${int(events)} events`, `in ${fixed((performance.now() - started) / 1000)} s (${path})`));
  return { events, ids };
}

/** A rebuild into a fresh read-model file, as `projections:rebuild` runs it (`direct`: as verify replays). */
async function rebuild(path: string, label: string, direct: boolean): Promise<{ seconds: number; cpu: number }> {
  const store = new EventStoreGateway(SqliteEventStore.open(path));
  const readModels = openReadModelDatabase(join(dir, `${label}-${Date.now()}.read-models.db`));
  const { db } = readModels;
  try {
    const started = performance.now();
    const cpu = ownCpuSeconds();
    await profiled(profileDir, label, async () => {
      if (!direct) return void (await rebuildProjections(store, db, PROJECTIONS));
      const head = await store.headPosition();
      await replayInto(
        store,
        db,
        PROJECTIONS.map((projection) => ({ projection, until: head })),
      );
    });
    return { seconds: (performance.now() - started) / 1000, cpu: ownCpuSeconds() - cpu };
  } finally {
    readModels.close();
    await store.close();
  }
}

function timedCpu<T>(body: () => T): T & { cpu: number } {
  const cpu = ownCpuSeconds();
  const result = body();
  return { ...result, cpu: ownCpuSeconds() - cpu };
}

async function main(): Promise<void> {
  console.log(`Rebuild benchmark: ${int(EXECUTIONS)} executions × 100 events, node ${process.version}, ${cpus().length} CPUs`);
  console.log(
    `load average ${loadavg()
      .map((n) => fixed(n, 2))
      .join(' ')} (other work on this machine skews every figure); files under ${dir}\n`,
  );
  const big = join(dir, 'big.db');
  const small = join(dir, 'small.db');
  const bigLog = await generate(big, EXECUTIONS);
  const smallLog = await generate(small, SMALL_EXECUTIONS);

  console.log('\n1. Rebuild of every projection vs a raw read of the same events');
  const raw = timedCpu(() => rawReadAll(big, 5000, false));
  const parsed = rawReadAll(big, 5000, true);
  const rawRate = raw.rows / raw.seconds;
  const rawCpuRate = raw.rows / raw.cpu;
  console.log(line('baseline: raw read', `${int(rawRate)} events/s (${fixed(raw.seconds, 2)} s; better-sqlite3, 5,000-row pages, no parsing)`));
  console.log(line('  raw read + JSON.parse', `${int(parsed.rows / parsed.seconds)} events/s (${fixed(parsed.seconds, 2)} s)`));
  const report = (label: string, run: { seconds: number; cpu: number }) => {
    const rate = bigLog.events / run.seconds;
    console.log(line(label, `${int(rate)} events/s (${fixed(run.seconds, 2)} s)  ratio ${fixed(rate / rawRate, 3)}`));
    // Wall-clock rates swing with whatever else runs here; per CPU-second they hardly move.
    console.log(
      line(
        '  per CPU-second',
        `${int(bigLog.events / run.cpu)} events vs ${int(rawCpuRate)} for the raw read: ratio ${fixed(bigLog.events / run.cpu / rawCpuRate, 3)}`,
      ),
    );
    return rate;
  };
  const rate = report('rebuild (the projector)', await rebuild(big, 'rebuild', false));
  console.log(
    line(
      '',
      `goal ≥ ${int(RATE_GOAL)} events/s: ${rate >= RATE_GOAL ? 'met' : 'NOT met'};  goal ratio ≥ ${RATIO_GOAL}: ${rate / rawRate >= RATIO_GOAL ? 'met' : 'NOT met'}`,
    ),
  );
  report('direct replay (as verify does)', await rebuild(big, 'replay', true));
  if (profileDir) {
    for (const file of readdirSync(profileDir).sort()) for (const text of summarizeProfile(join(profileDir, file), 25)) console.log(`  ${text}`);
  }

  console.log(`\n2. Append and replay at ${int(bigLog.events)} vs ${int(smallLog.events)} stored events (${ROUNDS} alternating rounds, medians)`);
  await measureScale({ big: { path: big, ids: bigLog.ids }, small: { path: small, ids: smallLog.ids }, rounds: ROUNDS, scratch: dir });
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
