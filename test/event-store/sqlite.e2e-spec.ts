import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppendResult, EventStore, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { MAX_EVENTS_PER_COMMIT } from '../../src/event-store/sqlite/group-commit';
import { SCHEMA_VERSION } from '../../src/event-store/sqlite/schema';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { describeEventStoreContract } from './event-store-contract';
import { WAIT_MS, ev, guarded, evs, range, revisions, sleep, withTimeout } from './contract/helpers';

const REPO_ROOT = resolve(__dirname, '../..');
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-sqlite-'));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describeEventStoreContract('sqlite', async () => SqliteEventStore.open(join(tempDir(), 'events.db')));

/** Opens the file from a separate node process, as a second Runledger instance would. */
function openInAnotherProcess(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `
    const { SqliteEventStore } = require('./src/event-store/sqlite/sqlite-event-store');
    try {
      SqliteEventStore.open(process.env.STORE_FILE).close().then(() => console.log('opened'));
    } catch (e) {
      console.error(e.message);
      process.exit(3);
    }`;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      { cwd: REPO_ROOT, env: { ...process.env, STORE_FILE: file }, timeout: 20_000 },
      (error, stdout, stderr) => done({ code: error ? ((error.code as number) ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('SqliteEventStore', () => {
  let store: SqliteEventStore;
  let file: string;

  beforeEach(() => {
    file = join(tempDir(), 'events.db');
    store = SqliteEventStore.open(file);
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await store.close();
  });

  describe('group commit', () => {
    it('commits every append requested in one turn in one transaction, failing only the conflicting ones', async () => {
      await store.append('existing', evs(2), 'no_stream');
      const transaction = jest.spyOn(Database.prototype, 'transaction');
      const appends: Promise<AppendResult>[] = range(0, 40).map((k) => store.append(`group-${k}`, [ev('test.grouped', { k })], 'no_stream'));
      // splice() returns the removed elements (none here); the inserted appends are awaited below.
      void appends.splice(10, 0, store.append('existing', evs(1), 0));
      void appends.splice(20, 0, store.append('existing', evs(1), 'no_stream'));
      // A payload JSON cannot encode fails its own append, not the transaction it would have joined.
      void appends.splice(30, 0, store.append('unencodable', [ev('test.bad', { n: BigInt(1) })], 'no_stream'));
      const outcomes = await Promise.allSettled(appends);

      expect(transaction).toHaveBeenCalledTimes(1);
      const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []));
      expect(failed).toEqual([10, 20, 30]);
      expect((outcomes[10] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((outcomes[20] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect((outcomes[30] as PromiseRejectedResult).reason).not.toBeInstanceOf(WrongExpectedRevisionError);
      const positions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.position] : []));
      // One transaction, applied in request order: the winners' positions are consecutive.
      expect(positions).toEqual(range(positions[0], positions[0] + 40));
      expect(revisions(await store.readStream('existing'))).toEqual([0, 1]);
      expect(await store.readStream('unencodable')).toEqual([]);
    });

    it('checks each expected revision against the appends queued before it in the same turn', async () => {
      const chained = [store.append('chain', evs(1), 'no_stream'), store.append('chain', evs(2), 0), store.append('chain', evs(1), 2)];
      expect((await Promise.all(chained)).map((r) => r.nextRevision)).toEqual([0, 2, 3]);

      const racing = await Promise.allSettled([
        store.append('claim', [ev('test.claim', { by: 'first' })], 'no_stream'),
        store.append('claim', [ev('test.claim', { by: 'second' })], 'no_stream'),
      ]);
      expect(racing.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
      expect((await store.readStream('claim')).map((e) => e.data)).toEqual([{ by: 'first' }]);
    });

    it('bounds one transaction: a small append of another stream joins the first one, big ones wait their turn, none is split', async () => {
      const transaction = jest.spyOn(Database.prototype, 'transaction');
      const big = MAX_EVENTS_PER_COMMIT - 12;
      const flood = range(0, 4).map((k) => store.append(`flood-${k}`, evs(big), 'no_stream'));
      // The same stream's next append may not pass the one before it, though it would fit.
      const chained = store.append('flood-1', evs(1), big - 1);
      const small = store.append('small', evs(1), 'no_stream');
      const order: string[] = [];
      const results = await Promise.all(
        [...flood, chained, small].map((p, i) => p.then((r) => (order.push(i === 5 ? 'small' : i === 4 ? 'chained' : `flood-${i}`), r))),
      );

      expect(transaction).toHaveBeenCalledTimes(4);
      expect(order.slice(0, 2)).toEqual(['flood-0', 'small']);
      expect(order.indexOf('chained')).toBeGreaterThan(order.indexOf('flood-1'));
      expect(results[4].nextRevision).toBe(big);
      for (const k of range(0, 4)) {
        const stored = await store.readStream(`flood-${k}`);
        expect(revisions(stored)).toEqual(range(0, k === 1 ? big + 1 : big));
        // An append's events are consecutive in the log: it went in one transaction.
        const positions = stored.slice(0, big).map((e) => e.position);
        expect(positions).toEqual(range(positions[0], positions[0] + big));
      }
    });

    it('commits one append larger than the bound alone, and everything queued on close', async () => {
      const huge = store.append('huge', evs(MAX_EVENTS_PER_COMMIT * 2 + 1), 'no_stream');
      const others = range(0, 3).map((k) => store.append(`after-${k}`, evs(MAX_EVENTS_PER_COMMIT), 'no_stream'));
      await store.close();
      await expect(huge).resolves.toMatchObject({ nextRevision: MAX_EVENTS_PER_COMMIT * 2 });
      for (const other of others) await expect(other).resolves.toMatchObject({ nextRevision: MAX_EVENTS_PER_COMMIT - 1 });
      store = SqliteEventStore.open(file);
      expect((await store.readAll()).length).toBe(MAX_EVENTS_PER_COMMIT * 5 + 1);
    });

    it('settles appends issued across turns with many streams (100 writers)', async () => {
      const write = async (w: number) => {
        for (let k = 0; k < 20; k++) await store.append(`w-${w}`, [ev('test.w', { k })], k === 0 ? 'no_stream' : k - 1);
      };
      await Promise.all(range(0, 100).map(write));
      expect((await store.readAll()).length).toBe(2000);
      expect(revisions(await store.readStream('w-99'))).toEqual(range(0, 20));
    });
  });

  describe('the file', () => {
    it('is locked against a second process, with a message naming the cause', async () => {
      await store.append('s', evs(1), 'no_stream');
      const second = await openInAnotherProcess(file);
      expect(second.code).toBe(3);
      expect(second.stderr).toMatch(/another process|lock/i);
      expect(second.stderr).toContain(file);

      await store.close();
      const third = await openInAnotherProcess(file);
      expect(third).toMatchObject({ code: 0, stdout: expect.stringContaining('opened') });
      store = SqliteEventStore.open(file);
      expect(await store.readStream('s')).toHaveLength(1);
    }, 60_000);

    it('keeps every event across close and reopen, and continues revisions and positions', async () => {
      await store.append('a', [ev('test.kept', { x: '✓' }, { occurredAt: '2024-05-05T05:05:05.005Z' })], 'no_stream');
      const last = await store.append('b', evs(3), 'no_stream');
      const before = await store.readAll();
      await store.close();

      store = SqliteEventStore.open(file);
      expect(await store.readAll()).toEqual(before);
      const next = await store.append('b', evs(1), 2);
      expect(next).toEqual({ nextRevision: 3, position: expect.any(Number) });
      expect(next.position).toBeGreaterThan(last.position);
    });

    it('creates missing folders', async () => {
      const nested = join(tempDir(), 'does', 'not', 'exist', 'events.db');
      const other = SqliteEventStore.open(nested);
      try {
        await other.append('s', evs(1), 'no_stream');
        expect(existsSync(nested)).toBe(true);
      } finally {
        await other.close();
      }
    });

    it('records its schema version, reopens without re-migrating, and refuses a newer file', async () => {
      await store.append('s', evs(1), 'no_stream');
      await store.close();
      const raw = new Database(file);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      raw.close();

      store = SqliteEventStore.open(file);
      expect(await store.readStream('s')).toHaveLength(1);
      await store.close();

      const bumped = new Database(file);
      bumped.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
      bumped.close();
      expect(() => SqliteEventStore.open(file)).toThrow(/newer/);
      store = SqliteEventStore.open(join(tempDir(), 'events.db'));
    });
  });

  describe('close', () => {
    it('commits appends still queued, then refuses new ones', async () => {
      const pending = store.append('late', evs(2), 'no_stream');
      await store.close();
      await expect(pending).resolves.toMatchObject({ nextRevision: 1 });
      await expect(store.append('late', evs(1), 1)).rejects.toThrow(/closed/);
      store = SqliteEventStore.open(file);
      expect(revisions(await store.readStream('late'))).toEqual([0, 1]);
    });

    it('ends live subscriptions', async () => {
      await store.append('live', evs(1), 'no_stream');
      const seen: number[] = [];
      const loop = (async () => {
        for await (const e of guarded((store as EventStore).subscribeToStream('live'))) seen.push(e.revision);
      })();
      const all = (async () => {
        for await (const e of guarded(store.subscribeToAll())) void e;
      })();
      await sleep(30);
      await store.close();
      await withTimeout(Promise.all([loop, all]), WAIT_MS, 'subscriptions to end on close');
      expect(seen).toEqual([0]);
      store = SqliteEventStore.open(file);
    });
  });
});
