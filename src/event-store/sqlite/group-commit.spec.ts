import Database from 'better-sqlite3';
import { GroupCommit } from './group-commit';
import { migrate } from './schema';

const event = (i: number) => ({ type: 'test.e', data: { i }, metadata: { tenantId: 'default', schemaVersion: 1, correlationId: null, causationId: null } });

// A long window (200 ms), so that a slow machine cannot pass it between a commit and the next append.
describe('GroupCommit on a thread that sleeps through its window', () => {
  let db: Database.Database;
  const sizes: [number, number][] = [];
  const slept: number[] = [];
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  let commits: GroupCommit;

  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db);
    sizes.length = 0;
    slept.length = 0;
    commits = new GroupCommit(
      db,
      () => undefined,
      200,
      (ms) => {
        slept.push(ms);
        Atomics.wait(sleeper, 0, 0, ms);
      },
    );
    commits.onCommit = (appends, events) => sizes.push([appends, events]);
  });

  afterEach(() => db.close());

  it('commits after a quiet spell at once, without sleeping', async () => {
    await commits.append('s-1', [event(0)], 'no_stream');
    expect(slept).toEqual([]);
    expect(sizes).toEqual([[1, 1]]);
  });

  it('sleeps out the rest of the window behind a commit, then commits what came meanwhile together', async () => {
    await commits.append('s-1', [event(0)], 'no_stream');
    const started = performance.now();
    const first = commits.append('s-2', [event(1)], 'no_stream');
    // Blocked in the sleep above: this one arrived "meanwhile", as a posted append would.
    const second = commits.append('s-3', [event(2), event(3)], 'no_stream');
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThan(0);
    expect(slept[0]).toBeLessThanOrEqual(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(slept[0] - 1);
    await expect(Promise.all([first, second])).resolves.toEqual([
      { nextRevision: 0, position: 2 },
      { nextRevision: 1, position: 4 },
    ]);
    expect(sizes).toEqual([
      [1, 1],
      [2, 3],
    ]);
  });

  it('checks each expected revision inside the shared commit, failing only the append that conflicts', async () => {
    await commits.append('s-1', [event(0)], 'no_stream');
    const stale = commits.append('s-1', [event(1)], 'no_stream');
    const fine = commits.append('s-2', [event(2)], 'no_stream');
    await expect(stale).rejects.toThrow(/s-1/);
    await expect(fine).resolves.toEqual({ nextRevision: 0, position: 2 });
    expect(slept).toHaveLength(1);
  });
});
