import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { newId } from '../../src/common/ids';
import { NewEvent, StoreUnavailableError, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { describeEventStoreContract } from './event-store-contract';
import { collect, ev, evs, range, revisions } from './contract/helpers';

/**
 * The SQLite adapter with its writer thread (docs/design.md#the-sqlite-writer-thread): the port's
 * contract, and what the thread must never do when it dies, refuses or is stopped mid-batch —
 * lose an acknowledged event, or write one twice.
 */
const REPO_ROOT = resolve(__dirname, '../..');
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-writer-'));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

const openThreaded = (file: string) => SqliteEventStore.open(file, { writer: 'thread' });

describeEventStoreContract('sqlite (writer thread)', async () => openThreaded(join(tempDir(), 'events.db')));

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the append to be rejected');
    },
    (error: unknown) => error,
  );
}

/** Events with ids, as a caller that may retry sends them. */
const withIds = (n: number, from = 0, pad = ''): NewEvent[] => range(from, from + n).map((i) => ({ ...ev('test.w', { i, pad }), id: newId() }));

describe('SqliteEventStore with its writer thread', () => {
  let store: SqliteEventStore;
  let file: string;

  beforeEach(() => {
    file = join(tempDir(), 'events.db');
    store = openThreaded(file);
  });

  afterEach(async () => {
    await store.close();
  });

  it('a thread that dies after committing, before answering: its appends are refused as unknown, stored once, and a retry finds them', async () => {
    await store.append('steady', evs(1), 'no_stream');
    const events = withIds(3);
    store.crashWriterAfterNextCommit();
    const outcomes = await Promise.allSettled([store.append('steady', events, 0), store.append('other', withIds(2), 'no_stream')]);
    for (const outcome of outcomes) expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);

    // A new thread takes the retry: same ids, same expected revision. The batch was committed, so
    // the retry conflicts and the caller finds its own ids in the stream, once each.
    const retry = await rejection(store.append('steady', events, 0));
    expect(retry).toBeInstanceOf(WrongExpectedRevisionError);
    const stored = await store.readStream('steady');
    expect(revisions(stored)).toEqual([0, 1, 2, 3]);
    expect(stored.slice(1).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(await store.append('steady', evs(1), 3)).toMatchObject({ nextRevision: 4 });
  });

  it('a thread that dies while this thread cannot read the file: its appends are still refused as unknown, and nothing throws from its end', async () => {
    await store.append('steady', evs(1), 'no_stream');
    store.crashWriterAfterNextCommit();
    // The event loop's connection, closed, stands for a file that cannot be read at that moment.
    (store as unknown as { db: Database.Database }).db.close();
    expect(await rejection(store.append('steady', withIds(2), 0))).toBeInstanceOf(StoreUnavailableError);
  });

  it('reads the last known event answers (stream-heads.ts) agree with the file, after a head too large to keep too', async () => {
    await store.append('s', evs(2), 'no_stream');
    expect((await store.lastEvent('s'))!.revision).toBe(1);
    expect(await store.readStream('s', { after: 1 })).toEqual([]);
    expect(revisions(await store.readStream('s', { after: 0 }))).toEqual([1]);
    await store.append('s', [ev('test.big', { pad: 'x'.repeat(40_000) })], 1);
    expect(await store.lastEvent('s')).toMatchObject({ revision: 2, type: 'test.big' });
    expect(await store.streamHead('s')).toBe(2);
    expect(revisions(await store.readStream('s', { after: 1 }))).toEqual([2]);
    await store.append('s', evs(1), 2);
    const fromFile = await store.readStream('s');
    expect(revisions(fromFile)).toEqual([0, 1, 2, 3]);
    expect(await store.lastEvent('s')).toEqual(fromFile[3]);
    expect(await store.readStream('s', { after: 2, limit: 5 })).toEqual([fromFile[3]]);
    expect(await store.readStream('s', { after: 3 })).toEqual([]);
    expect(await store.streamTenant('nothing-yet')).toBeNull();
    await store.append('nothing-yet', evs(1), 'no_stream');
    expect(await store.streamTenant('nothing-yet')).toBe(fromFile[0].metadata.tenantId);
  });

  it('reads of the streams it wrote, answered from what it committed, are what the file holds for every cursor and limit', async () => {
    const streams = ['m0', 'm1', 'm2'];
    const heads = new Map<string, number>();
    for (let round = 0; round < 30; round++) {
      await Promise.all(
        streams.map(async (s, k) => {
          const head = heads.get(s);
          const { nextRevision } = await store.append(s, evs(1 + ((round + k) % 4), 'test.m', round), head === undefined ? 'no_stream' : head);
          heads.set(s, nextRevision);
        }),
      );
    }
    const onDisk = new Database(file, { readonly: true });
    try {
      const rows = onDisk.prepare<[string], { event_id: string; revision: number; position: number; data: string }>(
        'SELECT event_id, revision, position, data FROM events WHERE stream_id = ? ORDER BY revision',
      );
      for (const s of streams) {
        const expected = rows.all(s).map((row) => ({ id: row.event_id, revision: row.revision, position: row.position, data: JSON.parse(row.data) }));
        for (const after of [-1, 0, 5, heads.get(s)! - 1, heads.get(s)!]) {
          for (const limit of [undefined, 1, 3, 16, 1000]) {
            const read = (await store.readStream(s, { after, limit })).map(({ id, revision, position, data }) => ({ id, revision, position, data }));
            const wanted = expected.filter((event) => event.revision > after);
            expect([after, limit, read]).toEqual([after, limit, limit === undefined ? wanted : wanted.slice(0, limit)]);
          }
        }
      }
    } finally {
      onDisk.close();
    }
  });

  it('no read sees a commit before this thread is told of it: a row in the file it was not told of is read by nothing until a later commit is', async () => {
    await store.append('late', evs(3), 'no_stream');
    const told = await store.headPosition();
    // The writer thread commits a little before its answer arrives here: rows put in the file
    // behind the store's back stand for such a commit, one on a stream it wrote, one on another.
    const behind = new Database(file);
    const metadata = JSON.stringify({ tenantId: 'tenant-contract', schemaVersion: 1, correlationId: null, causationId: null });
    const insert = behind.prepare(
      `INSERT INTO events (stream_id, revision, type, data, metadata, occurred_at, event_id, tenant_id, schema_version)
       VALUES (?, ?, 'test.happened', '{}', ?, '2026-12-06T00:00:00.000Z', ?, 'tenant-contract', 1)`,
    );
    try {
      insert.run('late', 3, metadata, newId());
      insert.run('cold', 0, metadata, newId());
    } finally {
      behind.close();
    }
    // Whether answered from memory or from the file, every read agrees with what was told.
    expect(revisions(await store.readStream('late'))).toEqual([0, 1, 2]);
    expect(revisions(await store.readStream('late', { after: 1, limit: 5 }))).toEqual([2]);
    expect(revisions(await store.readStream('late', { after: 2 }))).toEqual([]);
    expect((await store.lastEvent('late'))?.revision).toBe(2);
    expect(await store.streamHead('late')).toBe(2);
    expect(await store.readStream('cold')).toEqual([]);
    expect(await store.lastEvent('cold')).toBeNull();
    expect(await store.streamHead('cold')).toBeNull();
    expect(await store.streamTenant('cold')).toBeNull();
    expect(await store.headPosition()).toBe(told);
    expect((await store.readAll()).map((e) => e.streamId)).toEqual(['late', 'late', 'late']);
    expect(await store.countAll({ filter: {}, limit: 100 })).toBe(3);
    // The writer's own connection sees the file: the next append goes after the row it holds.
    await expect(store.append('late', evs(1), 2)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await store.append('late', evs(1), 3);
    expect(revisions(await store.readStream('late'))).toEqual([0, 1, 2, 3, 4]);
    expect(revisions(await store.readStream('cold'))).toEqual([0]);
    expect(await store.headPosition()).toBe(told + 3);
  });

  it('racing appends and reads: a read after an acknowledged append sees it, a head never goes back, and what the heads answer equals the file', async () => {
    const streams = ['r0', 'r1', 'r2'];
    const acknowledged = new Map(streams.map((s) => [s, -1]));
    let writing = true;
    const writers = streams.map(async (s) => {
      for (let i = 0; i < 150; i++) {
        const { nextRevision } = await store.append(s, evs(1, 'test.r', i), i === 0 ? 'no_stream' : i - 1);
        acknowledged.set(s, nextRevision);
      }
    });
    const reader = async () => {
      const seen = new Map(streams.map((s) => [s, -1]));
      let reads = 0;
      while (writing) {
        for (const s of streams) {
          const atLeast = acknowledged.get(s)!;
          const last = await store.lastEvent(s);
          const head = await store.streamHead(s);
          const tail = await store.readStream(s, { after: Math.max(atLeast - 1, -1) });
          expect(last?.revision ?? -1).toBeGreaterThanOrEqual(Math.max(atLeast, seen.get(s)!));
          expect(head ?? -1).toBeGreaterThanOrEqual(last?.revision ?? -1);
          if (atLeast >= 0) expect(tail[0]?.revision).toBe(atLeast);
          seen.set(s, last?.revision ?? -1);
          reads++;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      return reads;
    };
    const readers = [reader(), reader()];
    await Promise.all(writers);
    writing = false;
    expect((await Promise.all(readers)).every((n) => n > 0)).toBe(true);
    // The last events the heads answer are the file's, field for field.
    for (const s of streams) {
      const all = await store.readStream(s, { after: -1, limit: 1000 });
      expect(revisions(all)).toEqual(range(0, 150));
      expect(await store.lastEvent(s)).toEqual(all[149]);
      expect(await store.readStream(s, { after: 148 })).toEqual([all[149]]);
    }
  });

  it('commits the file refuses while the thread holds the appends: each fails typed, none is stored, the same events go in once there is room', async () => {
    await store.append('steady', evs(2), 'no_stream');
    const before = await store.readAll();
    const follow = collect((signal) => store.subscribeToStream('steady', { after: 1, signal }), 3);
    store.writerPragma(`max_page_count = ${store['db'].pragma('page_count', { simple: true }) as number}`);
    const big = withIds(3, 0, 'x'.repeat(50_000));
    // Both need new pages (a small one might still fit in free space, as on a real full disk),
    // whether the thread commits them together or one after the other.
    const outcomes = await Promise.allSettled([store.append('other', withIds(2, 0, 'y'.repeat(50_000)), 'no_stream'), store.append('steady', big, 1)]);
    for (const outcome of outcomes) {
      const reason = (outcome as PromiseRejectedResult).reason as StoreUnavailableError;
      expect(reason).toBeInstanceOf(StoreUnavailableError);
      expect(reason.message).toMatch(/SQLITE_FULL/);
      expect((reason.cause as { code?: string }).code).toBe('SQLITE_FULL');
    }
    expect(await store.readAll()).toEqual(before);

    store.writerPragma('max_page_count = 4294967294');
    expect(await store.append('steady', big, 1)).toMatchObject({ nextRevision: 4 });
    const stored = await store.readStream('steady');
    expect(stored.slice(2).map((e) => e.id)).toEqual(big.map((e) => e.id));
    // The follower got the events from the commit, exactly as a read returns them.
    expect(await follow).toEqual(stored.slice(2));
  });

  it('checks expected revisions inside the commit: of racing appends exactly one wins, and a payload JSON cannot encode fails alone', async () => {
    const racing = await Promise.allSettled(range(0, 10).map((k) => store.append('claim', [ev('test.claim', { k })], 'no_stream')));
    expect(racing.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const lost of racing.filter((o) => o.status === 'rejected')) {
      expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    }
    const [bad, good] = await Promise.allSettled([
      store.append('bad', [ev('test.bad', { n: BigInt(1) })], 'no_stream'),
      store.append('good', evs(1), 'no_stream'),
    ]);
    expect(bad.status).toBe('rejected');
    expect(good.status).toBe('fulfilled');
    expect(await store.readStream('bad')).toEqual([]);
  });

  it('close commits what the thread holds, then refuses new appends', async () => {
    const pending = range(0, 50).map((k) => store.append(`late-${k}`, evs(2), 'no_stream'));
    await store.close();
    for (const append of pending) await expect(append).resolves.toMatchObject({ nextRevision: 1 });
    await expect(store.append('late-0', evs(1), 1)).rejects.toThrow(/closed/);
    store = openThreaded(file);
    expect(await store.readAll()).toHaveLength(100);
  });

  it('keeps the file locked to its process for both writers', async () => {
    expect(() => SqliteEventStore.open(file)).toThrow(/another process/);
    expect(() => openThreaded(file)).toThrow(/another process/);
  });
});

/**
 * A process that appends from 20 writers, closes the store while appends are in flight and exits
 * 0: every append it saw acknowledged must be in the file, each once.
 */
function appendThenExit(storeFile: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `
    const { SqliteEventStore } = require('./src/event-store/sqlite/sqlite-event-store');
    const store = SqliteEventStore.open(process.env.STORE_FILE, { writer: 'thread' });
    const meta = { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null };
    let acks = 0;
    const writer = async (w) => {
      for (let k = 0; ; k++) {
        try {
          await store.append('w-' + w, [{ type: 'test.w', data: { k }, metadata: meta }], k === 0 ? 'no_stream' : k - 1);
        } catch (e) {
          return;
        }
        console.log('acked w-' + w + ' ' + k);
        if (++acks === 400) store.close().then(() => process.exit(0));
      }
    };
    for (let w = 0; w < 20; w++) writer(w);`;
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-e', script],
      { cwd: REPO_ROOT, env: { ...process.env, STORE_FILE: storeFile }, timeout: 30_000 },
      (error, stdout, stderr) => done({ code: error ? ((error.code as number) ?? -1) : 0, stdout, stderr }),
    );
  });
}

describe('SqliteEventStore writer thread at process exit', () => {
  it('has every acknowledged event on disk, once, after close with a batch in flight and exit 0', async () => {
    const storeFile = join(tempDir(), 'events.db');
    const child = await appendThenExit(storeFile);
    expect(child).toMatchObject({ code: 0 });
    const acked = child.stdout.trim().split('\n');
    expect(acked.length).toBeGreaterThanOrEqual(400);

    const store = SqliteEventStore.open(storeFile);
    try {
      const stored = await store.readAll();
      const keys = stored.map((e) => `acked ${e.streamId} ${e.data.k as number}`);
      expect(new Set(keys).size).toBe(keys.length);
      for (const line of acked) expect(keys).toContain(line);
      for (const w of range(0, 20)) {
        const revs = revisions(await store.readStream(`w-${w}`));
        expect(revs).toEqual(range(0, revs.length));
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
