import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { evs } from './contract/helpers';

/**
 * Every read of the event loop's connection is bounded by the acknowledged position
 * (acknowledged-position.ts): that bound must never make SQLite walk the table by position
 * instead of the stream's index, or every read would grow with the log.
 */
describe('the SQLite store reads through indexes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-plans-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('every statement it prepares on its connection searches an index or the primary key, none scans the events', async () => {
    const file = join(dir, 'events.db');
    const prepared = new Set<string>();
    // Called with each connection as `this` below, as better-sqlite3 calls it.
    const prepare = Reflect.get(Database.prototype, 'prepare') as (this: Database.Database, sql: string) => Database.Statement;
    const spy = jest.spyOn(Database.prototype, 'prepare').mockImplementation(function (this: Database.Database, sql: string) {
      prepared.add(sql);
      return prepare.call(this, sql);
    });
    const store = SqliteEventStore.open(file, { writer: 'thread' });
    try {
      for (let i = 0; i < 20; i++) await store.append(`s${i % 4}`, evs(50), i < 4 ? 'no_stream' : Math.floor(i / 4) * 50 - 1);
      // A stream it holds nothing of in memory, read in every shape.
      for (const limit of [undefined, 1, 7, 1000]) await store.readStream('absent', { after: -1, limit });
      await store.lastEvent('absent');
      await store.streamHead('absent');
      await store.streamTenant('absent');
      await store.readAll({ after: 0, limit: 10 });
      await store.readAll({ after: 0, limit: 10, filter: { tenantId: 'tenant-contract' } });
      await store.readAll({ after: 0, limit: 10, filter: { streamPrefixes: ['s1'], types: ['test.happened'] } });
      await store.countAll({ after: 0, limit: 10, filter: { tenantId: 'tenant-contract' } });
      const stop = new AbortController();
      for await (const item of store.subscribeToAllFiltered({ filter: { tenantId: 'tenant-contract' }, after: 990, signal: stop.signal })) {
        if (item.kind === 'checkpoint' || item.event.position >= 1000) break;
      }
      for await (const event of store.subscribeToStream('s1', { after: 240 })) if (event.revision >= 249) break;
      for await (const event of store.subscribeToAll({ after: 995 })) if (event.position >= 1000) break;
    } finally {
      spy.mockRestore();
      await store.close();
    }
    const db = new Database(file, { readonly: true });
    try {
      const reads = [...prepared].filter((sql) => /^\s*SELECT\b[\s\S]*\bFROM events\b/i.test(sql));
      expect(reads.length).toBeGreaterThanOrEqual(12);
      for (const sql of reads) {
        const params = (sql.match(/\?/g) ?? []).map(() => 1);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ');
        // A rowid range up to the bound is a SEARCH too, over the whole log: each read must seek by what it asks for.
        const wanted = /stream_id = \?/.test(sql)
          ? /USING (COVERING )?INDEX sqlite_autoindex_events_1 \(stream_id=\?/
          : /tenant_id = '/.test(sql)
            ? /USING (COVERING )?INDEX events_by_tenant \(tenant_id=\? AND position>\?/
            : /max\(position\)/.test(sql)
              ? /SEARCH events/
              : /USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/;
        expect({ sql, plan }).toEqual({ sql, plan: expect.stringMatching(wanted) });
        expect(plan).not.toMatch(/SCAN events\b/);
      }
    } finally {
      db.close();
    }
  });
});
