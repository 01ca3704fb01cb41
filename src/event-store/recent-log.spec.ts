import Database from 'better-sqlite3';
import type { AllFilter, StoredEvent } from './event-store';
import { RecentLog, matchesFilter } from './recent-log';
import { StoredRow } from './stored-row';
import { FilteredStatements } from './sqlite/event-rows';
import { migrate } from './sqlite/schema';

const event = (position: number, streamId = `execution-${position % 3}`, type = 'output.text.delta', tenantId = 'default'): StoredEvent => ({
  id: `e${position}`,
  streamId,
  revision: position,
  position,
  type,
  data: {},
  metadata: { tenantId, schemaVersion: 1, correlationId: null, causationId: null },
  occurredAt: '2026-12-02T00:00:00.000Z',
});
const positions = (events: StoredEvent[] | undefined) => events?.map((e) => e.position);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

describe('RecentLog', () => {
  it('hands over what follows a position it holds, with the head', () => {
    const log = new RecentLog();
    expect(log.after(0)).toBeNull();
    log.record([event(1), event(2)]);
    log.record([event(3)]);
    expect(positions(log.after(0)?.events)).toEqual([1, 2, 3]);
    expect(positions(log.after(2)?.events)).toEqual([3]);
    expect(log.after(3)).toEqual({ events: [], head: 3 });
  });

  it('answers null (read the store) behind the run, past it, after a gap and once cleared', () => {
    const log = new RecentLog();
    log.record([event(5), event(6)]);
    expect(log.after(3)).toBeNull();
    expect(log.after(7)).toBeNull();
    // A commit whose first position does not follow: the run starts afresh there.
    log.record([event(9)]);
    expect(log.after(6)).toBeNull();
    expect(log.after(8)).toEqual({ events: [event(9)], head: 9 });
    log.clear();
    expect(log.after(9)).toBeNull();
  });

  it('keeps no more than its weight allows, cut by halves, and then none of an event too heavy alone', () => {
    const heavy = (position: number) =>
      new StoredRow(`e${position}`, 'execution-1', position, position, 'run.queued', JSON.stringify({ pad: 'x'.repeat(9_734) }), '{}', 'now', 2);
    const log = new RecentLog(100_000); // ten events of 10,000
    for (let p = 1; p <= 10; p++) log.record([heavy(p)]);
    expect(positions(log.after(0)?.events)).toEqual(range(1, 11));
    log.record([heavy(11)]);
    // Past the budget, what is kept weighs half of it at most: the newest five.
    expect(log.after(5)).toBeNull();
    expect(positions(log.after(6)?.events)).toEqual([7, 8, 9, 10, 11]);
    log.record([new StoredRow('e12', 'execution-1', 12, 12, 'big', JSON.stringify({ pad: 'x'.repeat(200_000) }), '{}', 'now', 2)]);
    expect(log.after(11)).toBeNull();
    log.record([heavy(13)]);
    expect(positions(log.after(12)?.events)).toEqual([13]);
  });

  it('keeps its newest events only, still without a hole', () => {
    const log = new RecentLog();
    for (let p = 1; p <= 20_000; p++) log.record([event(p)]);
    expect(log.after(1)).toBeNull();
    expect(positions(log.after(19_997)?.events)).toEqual([19_998, 19_999, 20_000]);
  });
});

describe('matchesFilter', () => {
  it('agrees with the SQL of a filtered read for every filter part', () => {
    const db = new Database(':memory:');
    migrate(db);
    const insert = db.prepare(
      'INSERT INTO events (position, stream_id, revision, type, data, metadata, occurred_at, event_id, tenant_id, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)',
    );
    const streams = ['execution-a', 'conversation-b', 'webhook-c', 'exec-d', 'execution-é'];
    const events = Array.from({ length: 40 }, (_, i) =>
      event(i + 1, streams[i % streams.length], i % 2 ? 'run.started' : 'output.text.delta', i % 3 ? 'default' : "o'brien"),
    );
    for (const e of events) insert.run(e.position, e.streamId, e.revision, e.type, '{}', JSON.stringify(e.metadata), e.occurredAt, e.id, e.metadata.tenantId);
    const filters: AllFilter[] = [
      {},
      { streamPrefixes: ['execution-', 'conversation-'] },
      { streamPrefixes: ['webhook-'] },
      { streamPrefixes: ['execution-é'] },
      { streamPrefixes: [] },
      { types: ['run.started'] },
      { types: [] },
      { tenantId: "o'brien" },
      { tenantId: 'default', streamPrefixes: ['execution-'], types: ['output.text.delta'] },
    ];
    const statements = new FilteredStatements(db);
    for (const filter of filters) {
      const sql = statements
        .get(filter, '?')
        .all(0, Number.MAX_SAFE_INTEGER, -1)
        .map((row) => row.position);
      expect({ filter, positions: events.filter((e) => matchesFilter(filter, e)).map((e) => e.position) }).toEqual({ filter, positions: sql });
    }
    db.close();
  });
});
