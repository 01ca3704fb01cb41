/**
 * Append throughput of the PostgreSQL adapter against raw `pg` inserts of the same rows into the
 * same table on the same server, in one run (and Emmett's PostgreSQL event store, when installed).
 *
 *   npm run bench:postgres                          20,000 events per scenario, 3 rounds
 *   npm run bench:postgres -- --events 50000 --rounds 1 --raw-pool 32 --url postgres://…
 *   npm run bench:postgres -- --emmett /tmp/emmett/node_modules/@event-driven-io/emmett-postgresql
 *
 * Without --url it starts a throw-away PostgreSQL cluster (test/support/postgres-cluster.ts) with
 * fsync on, so every commit is durable, as in production. Every scenario gets a fresh database.
 * 100 writers, each on its own stream, each awaiting its append before the next:
 * (a1) raw: one row per INSERT, autocommit, through a pg.Pool of --raw-pool connections;
 * (a2) raw: 50 rows per INSERT (one transaction), same pool;
 * (b)  the port: 1 event per append, exact expected revisions — group commit batches them;
 * (c)  the port: 50-event appends, exact expected revisions;
 * (e1), (e2): Emmett's getPostgreSQLEventStore, the shapes of (b) and (c), exact expected versions.
 * Then the delivery lag the gap handling costs readers, and what a reader without it skips.
 * Raw rows get their position from the same expression the adapter uses (transaction id × 8192 +
 * index), so both write identical rows. Scenarios alternate round by round; medians are compared.
 */
import { Pool } from 'pg';
import { cpus, loadavg } from 'node:os';
import { EventStore, NewEvent } from '../src/event-store/event-store';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store';
import { MAX_EVENTS_PER_TRANSACTION } from '../src/event-store/postgres/position';
import { migrate } from '../src/event-store/postgres/schema';
import { PostgresCluster, createDatabase, startCluster } from '../test/support/postgres-cluster';
import { onExit } from './lib/cleanup';
import { fixed, int } from './lib/format';

const WRITERS = 100;
const BATCH = 50;
const GOAL = 0.7;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const EVENTS = Number(argValue('--events') ?? 20_000);
const ROUNDS = Number(argValue('--rounds') ?? 3);
const RAW_POOL = Number(argValue('--raw-pool') ?? 16);
const URL_GIVEN = argValue('--url');
if (!Number.isInteger(EVENTS) || EVENTS < WRITERS * BATCH) throw new Error(`--events must be an integer of at least ${WRITERS * BATCH}`);
const PER_WRITER = Math.floor(EVENTS / WRITERS / BATCH) * BATCH;
const TOTAL = PER_WRITER * WRITERS;

const PAD = 'x'.repeat(200);
/** ~180 bytes of JSON, shaped like an output delta. */
function data(stream: number, i: number): Record<string, unknown> {
  const base = { executionId: `0192f3a4-5b6c-7d8e-9f01-${String(stream).padStart(12, '0')}`, index: i, delta: '' };
  return { ...base, delta: PAD.slice(0, 180 - JSON.stringify(base).length) };
}
const metadata = (stream: number) => ({ tenantId: 'bench', schemaVersion: 1, correlationId: `corr-${stream}`, causationId: null });
const event = (stream: number, i: number): NewEvent => ({
  type: 'output.text.delta',
  data: data(stream, i),
  metadata: metadata(stream),
  occurredAt: new Date().toISOString(),
});
const streamName = (w: number) => `execution-bench-${w}`;

interface Result {
  label: string;
  seconds: number;
  transactions: number | null;
}

let adminUrl = '';
async function freshDatabase(label: string): Promise<string> {
  return createDatabase(adminUrl, label);
}

/** Transactions that wrote the events: positions of one transaction share position / 8192. */
async function transactionsIn(url: string, table = 'runledger_events'): Promise<number> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await pool.query(`SELECT count(*)::int AS events, count(DISTINCT position / ${MAX_EVENTS_PER_TRANSACTION})::int AS tx FROM ${table}`);
    if (rows[0].events !== TOTAL) throw new Error(`stored ${rows[0].events} events, expected ${TOTAL}`);
    return rows[0].tx;
  } finally {
    await pool.end();
  }
}

/** Runs `write(w, from, n)` for every writer over its stream, n events at a time, and times it. */
async function timed(perAppend: number, write: (w: number, revision: number, n: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let revision = 0; revision < PER_WRITER; revision += perAppend) await write(w, revision, perAppend);
    }),
  );
  return (performance.now() - started) / 1000;
}

const RAW_INSERT = `INSERT INTO runledger_events
  (position, stream_id, revision, event_id, tenant_id, schema_version, type, data, metadata, occurred_at)
  SELECT (pg_current_xact_id()::text::bigint - $1::bigint) * ${MAX_EVENTS_PER_TRANSACTION} + r.n - 1, r.s, r.rev, r.id, r.t, r.v, r.ty, r.d, r.m, r.o
  FROM unnest($2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::integer[], $7::text[], $8::json[], $9::json[], $10::text[])
    WITH ORDINALITY AS r(s, rev, id, t, v, ty, d, m, o, n)`;

async function raw(label: string, perAppend: number): Promise<Result> {
  const url = await freshDatabase('raw');
  const pool = new Pool({ connectionString: url, max: RAW_POOL });
  const { xidBase } = await migrate(pool);
  const { randomUUID } = await import('node:crypto');
  const seconds = await timed(perAppend, (w, revision, n) => {
    const events = Array.from({ length: n }, (_, j) => event(w, revision + j));
    return pool.query(RAW_INSERT, [
      xidBase.toString(),
      events.map(() => streamName(w)),
      events.map((_, j) => revision + j),
      events.map(() => randomUUID()),
      events.map((e) => e.metadata.tenantId),
      events.map((e) => e.metadata.schemaVersion),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.data)),
      events.map((e) => JSON.stringify(e.metadata)),
      events.map((e) => e.occurredAt),
    ]);
  });
  await pool.end();
  return { label, seconds, transactions: await transactionsIn(url) };
}

async function port(label: string, perAppend: number): Promise<Result> {
  const url = await freshDatabase('port');
  const store: EventStore = await PostgresEventStore.connect(url);
  const seconds = await timed(perAppend, (w, revision, n) =>
    store.append(
      streamName(w),
      Array.from({ length: n }, (_, j) => event(w, revision + j)),
      revision === 0 ? 'no_stream' : revision - 1,
    ),
  );
  await store.close();
  return { label, seconds, transactions: await transactionsIn(url) };
}

interface EmmettStore {
  appendToStream(stream: string, events: { type: string; data: unknown; metadata?: unknown }[], options?: { expectedStreamVersion?: bigint }): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Emmett's store, when it can be loaded: from --emmett <path to its package folder>, or installed
 * here. It is not a devDependency: its peer dependency uuid@10 conflicts with this project's uuid@11
 * (npm refuses without --legacy-peer-deps), so install it in a folder of its own:
 *   mkdir /tmp/emmett && cd /tmp/emmett && npm init -y && npm install @event-driven-io/emmett-postgresql
 *   npm run bench:postgres -- --emmett /tmp/emmett/node_modules/@event-driven-io/emmett-postgresql
 */
function emmett(): ((url: string) => EmmettStore) | undefined {
  for (const candidate of [argValue('--emmett'), '@event-driven-io/emmett-postgresql']) {
    if (!candidate) continue;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(candidate).getPostgreSQLEventStore;
    } catch {
      // try the next
    }
  }
  return undefined;
}

async function throughEmmett(label: string, perAppend: number): Promise<Result> {
  const url = await freshDatabase('emmett');
  const store = emmett()!(url);
  // Its schema is created on first use: not part of the timing.
  await store.appendToStream('warm-up', [{ type: 'warm', data: {} }]);
  const seconds = await timed(perAppend, (w, revision, n) =>
    store.appendToStream(
      streamName(w),
      Array.from({ length: n }, (_, j) => {
        const e = event(w, revision + j);
        return { type: e.type, data: e.data, metadata: e.metadata };
      }),
      revision === 0 ? {} : { expectedStreamVersion: BigInt(revision) },
    ),
  );
  await store.close();
  return { label, seconds, transactions: null };
}

/**
 * What the gap handling costs readers, and why it is there. 100 writers spread over `instances`
 * instances (so that many transactions can be in flight at once), or with `spacedMs` one writer
 * appending one event every `spacedMs`; a subscribeToAll on another instance measures
 * acknowledgement → delivery, and beside it a naive tail (position > cursor, no frontier) over the
 * same table counts the events it skips for good.
 */
async function delivery(instances: number, spacedMs?: number): Promise<{ p50: number; p99: number; naiveSkipped: number; total: number }> {
  const url = await freshDatabase('delivery');
  const writers = await Promise.all(Array.from({ length: instances }, () => PostgresEventStore.connect(url)));
  const reader = await PostgresEventStore.connect(url);
  const total = spacedMs === undefined ? TOTAL : 200;
  const acked = new Map<string, number>();
  const delivered = new Map<string, number>();
  const controller = new AbortController();
  const following = (async () => {
    for await (const e of reader.subscribeToAll({ signal: controller.signal })) {
      delivered.set(e.id, performance.now());
      if (delivered.size === total) break;
    }
  })();
  const naive = new Pool({ connectionString: url, max: 1 });
  const naiveSeen = new Set<string>();
  let writing = true;
  const tailing = (async () => {
    let cursor = 0;
    for (;;) {
      const done = !writing;
      const { rows } = await naive.query('SELECT position, event_id FROM runledger_events WHERE position > $1 ORDER BY position LIMIT 1000', [cursor]);
      for (const row of rows) naiveSeen.add(row.event_id);
      if (rows.length > 0) cursor = Number(rows[rows.length - 1].position);
      else if (done) return;
      if (spacedMs !== undefined) await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  const { randomUUID } = await import('node:crypto');
  const appendOne = async (store: EventStore, w: number, revision: number) => {
    const id = randomUUID();
    await store.append(streamName(w), [{ ...event(w, revision), id }], revision === 0 ? 'no_stream' : revision - 1);
    acked.set(id, performance.now());
  };
  if (spacedMs === undefined) {
    await timed(1, (w, revision) => appendOne(writers[w % writers.length], w, revision));
  } else {
    for (let revision = 0; revision < total; revision++) {
      await appendOne(writers[0], 0, revision);
      await new Promise((resolve) => setTimeout(resolve, spacedMs));
    }
  }
  writing = false;
  await following;
  await tailing;
  controller.abort();
  const lags = [...delivered].map(([id, at]) => Math.max(0, at - acked.get(id)!)).sort((a, b) => a - b);
  await naive.end();
  for (const store of [...writers, reader]) await store.close();
  return { p50: lags[Math.floor(lags.length * 0.5)], p99: lags[Math.floor(lags.length * 0.99)], naiveSkipped: total - naiveSeen.size, total };
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  let cluster: PostgresCluster | undefined;
  if (URL_GIVEN) {
    adminUrl = URL_GIVEN;
  } else {
    cluster = await startCluster({ fsync: true });
    onExit(() => cluster!.destroySync());
    adminUrl = cluster.adminUrl;
  }
  console.log(`PostgreSQL append benchmark: ${int(TOTAL)} events per scenario, ${WRITERS} writers on their own streams, ~180-byte data,`);
  console.log(
    `${URL_GIVEN ? `server ${URL_GIVEN}` : 'a throw-away PostgreSQL cluster with fsync on'}, raw pool ${RAW_POOL} connections, ${ROUNDS} rounds (median shown)`,
  );
  const load = loadavg()[0];
  const busy = load > cpus().length * 0.5 ? '  — the machine is busy: figures will be low and noisy' : '';
  console.log(`load average ${fixed(load, 2)} on ${cpus().length} cores${busy}\n`);

  const scenarios: { run: () => Promise<Result>; against: number }[] = [
    { run: () => raw('(a1) raw pg, 1 row per INSERT', 1), against: 0 },
    { run: () => raw(`(a2) raw pg, ${BATCH} rows per INSERT`, BATCH), against: 1 },
    { run: () => port('(b) port, 1 event/append', 1), against: 0 },
    { run: () => port(`(c) port, ${BATCH}-event appends`, BATCH), against: 1 },
  ];
  if (emmett()) {
    scenarios.push({ run: () => throughEmmett('(e1) Emmett, 1 event/append', 1), against: 0 });
    scenarios.push({ run: () => throughEmmett(`(e2) Emmett, ${BATCH}-event appends`, BATCH), against: 1 });
  } else {
    console.log('  (Emmett not loaded: see --emmett in bench/postgres-append.ts to compare with it)\n');
  }
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
  console.log(`\n  ${'scenario'.padEnd(width)}  ${'events/s'.padStart(9)}  ${'vs raw'.padEnd(10)}  events/transaction`);
  runs.forEach((rs, k) => {
    const against = k === scenarios[k].against ? '' : `${fixed(ratio(k), 2)} ${label(scenarios[k].against).split(' ')[0]}`;
    const perTx = rs[0].transactions ? fixed(TOTAL / rs[0].transactions, 1) : '-';
    console.log(`  ${label(k).padEnd(width)}  ${int(rates[k]).padStart(9)}  ${against.padEnd(10)}  ${perTx}`);
  });
  const verdict = (k: number) => `${fixed(ratio(k), 2)} ${ratio(k) >= GOAL ? 'meets' : 'MISSES'} it`;
  console.log(`\n  goal: the port ≥ ${GOAL} × raw of the same shape.  (b): ${verdict(2)}.  (c): ${verdict(3)}.`);
  if (scenarios.length > 4) {
    console.log(`  against Emmett: (b)/(e1) ${fixed(rates[2] / rates[4], 2)}×, (c)/(e2) ${fixed(rates[3] / rates[5], 2)}×`);
  }
  console.log('\n  delivery: acknowledged append → subscribeToAll on another instance; beside it a naive tail (position > cursor, no frontier)');
  for (const [label, run] of [
    ['1 writer, 1 event every 20 ms', () => delivery(1, 20)],
    ['100 writers on 1 instance', () => delivery(1)],
    ['100 writers on 4 instances', () => delivery(4)],
  ] as const) {
    const lag = await run();
    console.log(
      `  ${label.padEnd(31)} p50 ${fixed(lag.p50).padStart(5)} ms, p99 ${fixed(lag.p99).padStart(5)} ms; the naive tail skipped ${int(lag.naiveSkipped)} of ${int(lag.total)} for good`,
    );
  }
  await cluster?.destroy();
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  },
);
