import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { NewEvent } from '../../src/event-store/event-store';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { ownCpuSeconds } from './cpu';
import { fixed, int, line } from './format';

const WRITERS = 100;
const APPENDS_PER_WRITER = 300;
const REPLAYS = 2000;
const GOAL = 0.15;

interface Log {
  path: string;
  ids: string[];
}

/** Events per wall-clock second, and CPU µs (this process: JS and SQLite alike) per event. */
interface Sample {
  rate: number;
  cpuMicros: number;
}

const event = (i: number): NewEvent => ({
  type: 'output.text.delta',
  data: { delta: `tok${i} ` },
  metadata: { tenantId: 'bench', schemaVersion: 2, correlationId: null, causationId: null },
});

async function sample(events: number, body: () => Promise<unknown>): Promise<Sample> {
  const cpu = ownCpuSeconds();
  const started = performance.now();
  await body();
  const seconds = (performance.now() - started) / 1000;
  return { rate: events / seconds, cpuMicros: ((ownCpuSeconds() - cpu) / events) * 1e6 };
}

/** 100 writers each appending one event at a time to its own new stream, at the store's default synchronous=FULL; on a copy of the log. */
async function append(log: Log, scratch: string, round: number): Promise<Sample> {
  const copy = join(scratch, `append-${round}.db`);
  copyFileSync(log.path, copy);
  const store = SqliteEventStore.open(copy);
  try {
    return await sample(WRITERS * APPENDS_PER_WRITER, () =>
      Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          for (let i = 0; i < APPENDS_PER_WRITER; i++) await store.append(`execution-scale-${round}-${w}`, [event(i)], i === 0 ? 'no_stream' : i - 1);
        }),
      ),
    );
  } finally {
    await store.close();
    rmSync(copy, { force: true });
  }
}

/** Whole-stream replays of random executions through the gateway (upcasting), as GET …/events reads them. */
async function replay(log: Log): Promise<Sample> {
  const picks = Array.from({ length: REPLAYS }, () => log.ids[Math.floor(Math.random() * log.ids.length)]);
  const store = new EventStoreGateway(SqliteEventStore.open(log.path));
  try {
    let events = 0;
    const counted = await sample(1, async () => {
      for (const id of picks) events += (await store.readStream(`execution-${id}`)).length;
    });
    return { rate: counted.rate * events, cpuMicros: counted.cpuMicros / events };
  } finally {
    await store.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Append and replay at both sizes, in ABBA order round by round (this machine's speed drifts),
 * compared by median. Wall-clock rates swing with other load; CPU per event barely does, so
 * both are printed and both judged.
 */
export async function measureScale(options: { big: Log; small: Log; rounds: number; scratch: string }): Promise<void> {
  const runs = { append: { small: [] as Sample[], big: [] as Sample[] }, replay: { small: [] as Sample[], big: [] as Sample[] } };
  for (let round = 1; round <= options.rounds; round++) {
    const order = round % 2 === 1 ? (['small', 'big'] as const) : (['big', 'small'] as const);
    for (const size of order) runs.append[size].push(await append(options[size], options.scratch, round));
    for (const size of order) runs.replay[size].push(await replay(options[size]));
    const last = (kind: 'append' | 'replay', size: 'small' | 'big') => int(runs[kind][size].at(-1)!.rate);
    console.log(
      `  round ${round}: append ${last('append', 'small')} vs ${last('append', 'big')} events/s; replay ${last('replay', 'small')} vs ${last('replay', 'big')} events/s (small vs big)`,
    );
  }
  const verdict = (ratio: number) => `${fixed(ratio, 3)} (${ratio >= 1 - GOAL ? 'within' : 'NOT within'} 15 %)`;
  for (const kind of ['append', 'replay'] as const) {
    const label = kind === 'append' ? `append (${WRITERS} writers, 1 event each)` : `replay (${REPLAYS} whole streams)`;
    const rate = (size: 'small' | 'big') => median(runs[kind][size].map((s) => s.rate));
    const cpu = (size: 'small' | 'big') => median(runs[kind][size].map((s) => s.cpuMicros));
    console.log(line(label, `${int(rate('small'))} → ${int(rate('big'))} events/s: big/small ${verdict(rate('big') / rate('small'))}`));
    console.log(line('  CPU per event', `${fixed(cpu('small'), 1)} → ${fixed(cpu('big'), 1)} µs: small/big ${verdict(cpu('small') / cpu('big'))}`));
  }
}
