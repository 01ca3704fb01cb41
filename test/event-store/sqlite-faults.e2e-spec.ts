import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/common/ids';
import { NewEvent, StoreUnavailableError, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { SCHEMA_VERSION } from '../../src/event-store/sqlite/schema';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { collect, ev, evs, range, revisions } from './contract/helpers';

/**
 * The SQLite adapter when the file misbehaves or is old: real SQLite failures and real old
 * files, no mocks (ENGINEERING rule 11). The port's contract itself is in sqlite.e2e-spec.ts.
 */
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-sqlite-faults-'));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('SqliteEventStore faults and migrations', () => {
  let store: SqliteEventStore;

  beforeEach(() => {
    store = SqliteEventStore.open(join(tempDir(), 'events.db'));
  });

  afterEach(async () => {
    await store.close();
  });

  /**
   * Real SQLite failures, no mocks: `PRAGMA max_page_count` set to the file's current size makes
   * SQLite answer SQLITE_FULL to the next write that needs a new page (ENGINEERING rule 11).
   */
  describe('when the file cannot take writes (SQLITE_FULL)', () => {
    const db = (): Database.Database => store['db'];
    /** ~50 KB of data each, so an append needs new pages whatever free space the last page has. */
    const big = (n: number, from = 0): NewEvent[] => range(from, from + n).map((i) => ({ ...ev('test.big', { i, pad: 'x'.repeat(50_000) }), id: newId() }));
    const fillUp = (): void => {
      const pages = db().pragma('page_count', { simple: true }) as number;
      db().pragma(`max_page_count = ${pages}`);
    };
    const makeRoom = (): void => void db().pragma('max_page_count = 1073741823');

    async function rejection(promise: Promise<unknown>): Promise<unknown> {
      return promise.then(
        () => {
          throw new Error('expected the append to be rejected');
        },
        (error: unknown) => error,
      );
    }

    it('rejects the append with StoreUnavailableError and stores nothing of it; reads keep working', async () => {
      await store.append('steady', evs(2), 'no_stream');
      const before = await store.readAll();
      fillUp();

      const error = await rejection(store.append('steady', big(3), 1));
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(error).not.toBeInstanceOf(WrongExpectedRevisionError);
      expect((error as Error).message).toMatch(/SQLITE_FULL/);
      expect(((error as StoreUnavailableError).cause as { code?: string }).code).toBe('SQLITE_FULL');

      // Nothing of it is there, the file is not left inside a transaction, and reads still work.
      expect(db().inTransaction).toBe(false);
      expect(revisions(await store.readStream('steady'))).toEqual([0, 1]);
      expect(await store.streamHead('steady')).toBe(1);
      expect(await store.readAll()).toEqual(before);
      // Still full: a retry fails the same way rather than half-writing.
      expect(await rejection(store.append('steady', big(3), 1))).toBeInstanceOf(StoreUnavailableError);
      expect(await store.streamHead('steady')).toBe(1);
    });

    it('rejects every append of the group-commit batch it failed, storing none of them, not even in part', async () => {
      await store.append('steady', evs(2), 'no_stream');
      const before = await store.readAll();
      fillUp();
      // One event-loop turn, so one transaction: small appends queued before and after the big one.
      const outcomes = await Promise.allSettled([
        store.append('small-before', evs(2), 'no_stream'),
        store.append('steady', big(3), 1),
        store.append('small-after', evs(1), 'no_stream'),
        store.append('steady', evs(1), 'any'),
      ]);
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
      }
      expect(await store.readAll()).toEqual(before);
      expect(await store.streamHead('small-before')).toBeNull();
      expect(await store.streamHead('small-after')).toBeNull();
    });

    it('takes the same events again once there is room, continuing revisions with no hole', async () => {
      await store.append('steady', evs(2), 'no_stream');
      const from = (await store.readAll()).at(-1)!.position;
      // Someone following $all and the stream from before the fault sees only what was stored.
      const followAll = collect((signal) => store.subscribeToAll({ after: from, signal }), 4);
      const followStream = collect((signal) => store.subscribeToStream('steady', { after: 1, signal }), 3);
      fillUp();
      const events = big(3);
      await rejection(store.append('steady', events, 1));
      await rejection(store.append('steady', events, 1));

      makeRoom();
      const result = await store.append('steady', events, 1);
      expect(result.nextRevision).toBe(4);
      await store.append('after-fault', evs(1), 'no_stream');
      const stored = await store.readStream('steady');
      expect(revisions(stored)).toEqual(range(0, 5));
      expect(stored.slice(2).map((e) => e.id)).toEqual(events.map((e) => e.id));
      expect(stored.slice(2).map((e) => e.data.i)).toEqual([0, 1, 2]);
      const received = await followAll;
      expect(received.map((e) => `${e.streamId}@${e.revision}`)).toEqual(['steady@2', 'steady@3', 'steady@4', 'after-fault@0']);
      expect(received.slice(0, 3)).toEqual(stored.slice(2));
      expect(await followStream).toEqual(stored.slice(2));
    });
  });

  describe('a file written by an older build', () => {
    /** The events table exactly as schema version 1 created it (src/event-store/sqlite/schema.ts). */
    const VERSION_1_TABLE = `CREATE TABLE events (
       position    INTEGER PRIMARY KEY AUTOINCREMENT,
       stream_id   TEXT    NOT NULL,
       revision    INTEGER NOT NULL,
       type        TEXT    NOT NULL,
       data        TEXT    NOT NULL,
       metadata    TEXT    NOT NULL,
       occurred_at TEXT    NOT NULL,
       UNIQUE (stream_id, revision)
     )`;
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

    it('opens, and its old events read back with UUID-shaped ids of their own; new appends continue', async () => {
      const old = join(tempDir(), 'v1.db');
      const raw = new Database(old);
      raw.pragma('journal_mode = WAL');
      raw.exec(VERSION_1_TABLE);
      const insert = raw.prepare('INSERT INTO events (stream_id, revision, type, data, metadata, occurred_at) VALUES (?, ?, ?, ?, ?, ?)');
      const metadata = JSON.stringify({ tenantId: 't-old', schemaVersion: 1, correlationId: 'c', causationId: null });
      insert.run('old', 0, 'test.old', JSON.stringify({ n: 0 }), metadata, '2024-01-01T00:00:00.000Z');
      insert.run('old', 1, 'test.old', JSON.stringify({ n: 1 }), metadata, '2024-01-01T00:00:01.000Z');
      raw.pragma('user_version = 1');
      raw.close();

      const migrated = SqliteEventStore.open(old);
      let given: string[];
      try {
        const read = await migrated.readStream('old');
        expect(read.map((e) => [e.revision, e.data.n, e.metadata.tenantId, e.occurredAt])).toEqual([
          [0, 0, 't-old', '2024-01-01T00:00:00.000Z'],
          [1, 1, 't-old', '2024-01-01T00:00:01.000Z'],
        ]);
        for (const event of read) expect(event.id).toMatch(UUID);
        expect(read[0].id).not.toBe(read[1].id);
        given = read.map((e) => e.id);
        // The ids were assigned once, by the migration: they do not change from read to read.
        expect(await migrated.readAll()).toEqual(read);
        expect(await migrated.streamHead('old')).toBe(1);
        const id = newId();
        expect((await migrated.append('old', [{ ...ev('test.new'), id }], 1)).nextRevision).toBe(2);
        expect((await migrated.readStream('old', { after: 1 }))[0].id).toBe(id);
      } finally {
        await migrated.close();
      }
      const check = new Database(old);
      expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      check.close();
      // Reopening does not migrate again, so the old events keep the ids they were given.
      const reopened = SqliteEventStore.open(old);
      try {
        expect((await reopened.readStream('old')).slice(0, 2).map((e) => e.id)).toEqual(given);
      } finally {
        await reopened.close();
      }
    });
  });
});
