/**
 * Append throughput of the SQLite adapter against raw better-sqlite3, in one run on fresh temp files.
 *
 *   npm run bench:append                                50,000 events per scenario, synchronous=FULL
 *   npm run bench:append -- --events 20000 --rounds 1 --synchronous NORMAL
 *
 * (a) baselines: raw better-sqlite3 inserts of the same rows into the adapter's own table (its
 *     migration, its pragmas), 50 rows per transaction, rows serialised before the clock starts:
 *     (a1) each transaction one row of each of 50 streams (the shape of (b)), (a2) each
 *     transaction 50 consecutive revisions of one stream (the shape of (c));
 * (b) the port: 100 writers on 100 streams, one event per append, each awaiting its append before
 *     the next, with exact expected revisions (group commit is what makes this fast);
 * (c) the port: one writer appending 50-event batches, round-robin over 100 streams;
 * (d) the port: 100 writers appending 50-event batches.
 * (b) to (d) run with the inline writer (the group commit on the event loop), then (b') to (d')
 * with the writer thread the server uses (docs/design.md#the-sqlite-writer-thread).
 * Each scenario runs --rounds times (default 3), alternating; medians are compared.
 * Goal: (b) and (c) at least 0.5 of the baseline of their shape.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventStore, NewEvent } from '../src/event-store/event-store';
import { migrate } from '../src/event-store/sqlite/schema';
import { SqliteEventStore } from '../src/event-store/sqlite/sqlite-event-store';
import { onExit } from './lib/cleanup';
import { fixed, int } from './lib/format';

const GOAL = 0.5;
const STREAMS = 100;
const BATCH = 50;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const EVENTS = Number(argValue('--events') ?? 50_000);
const ROUNDS = Number(argValue('--rounds') ?? 3);
const SYNCHRONOUS = (argValue('--synchronous') ?? 'FULL').toUpperCase();
if (!Number.isInteger(EVENTS) || EVENTS < STREAMS * BATCH) {
  throw new Error(`--events must be an integer of at least ${STREAMS * BATCH}`);
}
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a positive integer');
if (SYNCHRONOUS !== 'FULL' && SYNCHRONOUS !== 'NORMAL') throw new Error('--synchronous must be FULL or NORMAL');
// Whole batches per stream, so every scenario stores exactly the same number of events.
const PER_STREAM = Math.floor(EVENTS / STREAMS / BATCH) * BATCH;
const TOTAL = PER_STREAM * STREAMS;

const dir = mkdtempSync(join(tmpdir(), 'runledger-bench-append-'));
onExit(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshFile = () => join(dir, `events-${++files}.db`);

const PAD = 'x'.repeat(200);
/** ~180 bytes of JSON, shaped like an output delta. */
function data(stream: number, i: number): Record<string, unknown> {
  const base = { executionId: `0192f3a4-5b6c-7d8e-9f01-${String(stream).padStart(12, '0')}`, index: i, delta: '' };
  return { ...base, delta: PAD.slice(0, 180 - JSON.stringify(base).length) };
}

const metadata = (stream: number) => ({
  tenantId: 'bench',
  schemaVersion: 1,
  correlationId: `corr-${stream}`,
  causationId: null,
});

function event(stream: number, i: number): NewEvent {
  return { type: 'output.text.delta', data: data(stream, i), metadata: metadata(stream), occurredAt: new Date().toISOString() };
}

const streamName = (run: string, s: number) => `execution-${run}-${s}`;

function progress(label: string, done: () => number): () => void {
  const started = performance.now();
  const timer = setInterval(() => {
    const s = (performance.now() - started) / 1000;
    process.stderr.write(`  … ${label}: ${int(done())} / ${int(TOTAL)} events after ${fixed(s)} s\n`);
  }, 2000);
  return () => clearInterval(timer);
}

interface Result {
  label: string;
  seconds: number;
  commits: number | null;
}

type Shape = 'interleaved' | 'per-stream';

/**
 * The row order matters as much as the row count: each transaction dirties one index page per
 * stream it touches, so a transaction spread over 50 streams writes far more than one holding 50
 * revisions of a single stream. Each port scenario is compared with the baseline of its own shape.
 */
function rowOrder(shape: Shape, i: number): { stream: number; revision: number } {
  if (shape === 'interleaved') return { stream: i % STREAMS, revision: Math.floor(i / STREAMS) };
  const chunk = Math.floor(i / BATCH);
  return { stream: chunk % STREAMS, revision: Math.floor(chunk / STREAMS) * BATCH + (i % BATCH) };
}

function baseline(label: string, shape: Shape): Result {
  const db = new Database(freshFile());
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SYNCHRONOUS}`);
  migrate(db);
  const rows: [string, number, string, string, string, string][] = [];
  for (let i = 0; i < TOTAL; i++) {
    const { stream, revision } = rowOrder(shape, i);
    const e = event(stream, revision);
    rows.push([streamName('a', stream), revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata), e.occurredAt!]);
  }
  const insert = db.prepare('INSERT INTO events (stream_id, revision, type, data, metadata, occurred_at) VALUES (?, ?, ?, ?, ?, ?)');
  const commit = db.transaction((batch: typeof rows) => {
    for (const row of batch) insert.run(...row);
  });
  const started = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) commit(rows.slice(i, i + BATCH));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return { label, seconds, commits: TOTAL / BATCH };
}

type Writer = 'inline' | 'thread';

/** `writers` concurrent writers share the streams; each appends `perAppend` events at a time. */
async function throughPort(label: string, run: string, writers: number, perAppend: number, writer: Writer): Promise<Result> {
  const sqlite = SqliteEventStore.open(freshFile(), { synchronous: SYNCHRONOUS as 'FULL' | 'NORMAL', writer });
  // The adapter reports each group commit, so events/commits shows the grouping.
  let commits = 0;
  sqlite.onCommit = () => void commits++;
  const store: EventStore = sqlite;
  let stored = 0;
  const stop = progress(label, () => stored);
  const streamsPerWriter = STREAMS / writers;
  const commitsBefore = commits;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let revision = 0; revision < PER_STREAM; revision += perAppend) {
        for (let k = 0; k < streamsPerWriter; k++) {
          const s = w * streamsPerWriter + k;
          const events = Array.from({ length: perAppend }, (_, j) => event(s, revision + j));
          await store.append(streamName(run, s), events, revision === 0 ? 'no_stream' : revision - 1);
          stored += perAppend;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const commitCount = commits - commitsBefore;
  stop();
  const all = await store.readAll();
  if (all.length !== TOTAL) throw new Error(`${label}: stored ${all.length} events, expected ${TOTAL}`);
  await store.close();
  return { label, seconds, commits: commitCount };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  console.log(`Append benchmark: ${int(TOTAL)} events per scenario over ${STREAMS} streams, ~180-byte data,`);
  console.log(`WAL, synchronous=${SYNCHRONOUS}, ${ROUNDS} rounds (median shown), fresh files under ${dir}`);
  const load = loadavg()[0];
  const busy = load > cpus().length * 0.5 ? '  — the machine is busy: figures will be low and noisy' : '';
  console.log(`load average ${fixed(load, 2)} on ${cpus().length} cores${busy}\n`);
  // `against`: the index of the baseline with the same shape of transactions.
  const scenarios: { run: () => Result | Promise<Result>; against: number }[] = [
    { run: () => baseline(`(a1) raw, ${BATCH} rows/tx, 1 row each of ${BATCH} streams`, 'interleaved'), against: 0 },
    { run: () => baseline(`(a2) raw, ${BATCH} rows/tx, all of one stream`, 'per-stream'), against: 1 },
    ...(['inline', 'thread'] as const).flatMap((writer) => {
      const tag = writer === 'inline' ? '' : "'";
      const how = `${writer} writer`;
      return [
        { run: () => throughPort(`(b${tag}) port, ${how}, 100 writers, 1 event/append`, `b${writer}`, STREAMS, 1, writer), against: 0 },
        { run: () => throughPort(`(c${tag}) port, ${how}, 1 writer, ${BATCH}-event batches`, `c${writer}`, 1, BATCH, writer), against: 1 },
        { run: () => throughPort(`(d${tag}) port, ${how}, 100 writers, ${BATCH}-event batches`, `d${writer}`, STREAMS, BATCH, writer), against: 1 },
      ];
    }),
  ];
  // fsync time on this disk drifts by ±20 % over seconds, so the scenarios alternate round by
  // round instead of running back to back, and each reports its median.
  const runs: Result[][] = scenarios.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    const line: string[] = [];
    for (const [k, scenario] of scenarios.entries()) {
      const result = await scenario.run();
      runs[k].push(result);
      line.push(`${result.label.split(' ')[0]} ${int(TOTAL / result.seconds)}/s`);
    }
    console.log(`  round ${round}: ${line.join('  ')}`);
  }

  const rates = runs.map((rs) => median(rs.map((r) => TOTAL / r.seconds)));
  const ratio = (k: number) => rates[k] / rates[scenarios[k].against];
  const label = (k: number) => runs[k][0].label;
  const width = Math.max(...runs.map((_, k) => label(k).length));
  console.log(`\n  ${'scenario'.padEnd(width)}  ${'events/s'.padStart(9)}  ${'vs baseline'.padEnd(11)}  ${'vs (a1)'.padStart(7)}  events/commit`);
  runs.forEach((rs, k) => {
    const against = k === scenarios[k].against ? '' : `${fixed(ratio(k), 2)} ${label(scenarios[k].against).split(' ')[0]}`;
    const perCommit = rs[0].commits ? fixed(TOTAL / rs[0].commits, 0) : '-';
    console.log(`  ${label(k).padEnd(width)}  ${int(rates[k]).padStart(9)}  ${against.padEnd(11)}  ${fixed(rates[k] / rates[0], 2).padStart(7)}  ${perCommit}`);
  });
  const verdict = (k: number) => `${fixed(ratio(k), 2)} ${ratio(k) >= GOAL ? 'meets' : 'MISSES'} it`;
  console.log(
    `\n  goal: (b) and (c) ≥ ${GOAL} × the raw baseline of the same shape.  (b): ${verdict(2)}.  (c): ${verdict(3)}.  (b'): ${verdict(5)}.  (c'): ${verdict(6)}.`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
