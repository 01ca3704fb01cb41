import type { StoredEvent } from './event-store';
import { CommittedAppend, EVENTS_PER_STREAM, RecentEvents } from './recent-events';

const row = (n: number) => ({
  id: `id-${n}`,
  type: 'output.delta',
  data: JSON.stringify({ n }),
  metadata: '{"tenantId":"t","schemaVersion":1}',
  tenantId: 't',
  occurredAt: 'now',
  schemaVersion: 1,
});

/** An append of `count` events to `stream` whose last one got `revision` and `position`. */
const append = (streamId: string, count: number, revision: number, position: number): CommittedAppend => ({
  streamId,
  rows: Array.from({ length: count }, (_, k) => row(revision - count + 1 + k)),
  result: { nextRevision: revision, position },
});

const event = (streamId: string, revision: number): StoredEvent => ({
  id: `id-${revision}`,
  streamId,
  revision,
  position: 1000 + revision,
  type: 'output.delta',
  data: { n: revision },
  metadata: { tenantId: 't', schemaVersion: 1 } as StoredEvent['metadata'],
  occurredAt: 'now',
});

const revisions = (events: StoredEvent[] | null) => events?.map((e) => e.revision) ?? null;
const all = () => true;

describe('RecentEvents', () => {
  it('hands a follower the rest of a commit from its next revision, parsed, with revisions and positions', () => {
    const recent = new RecentEvents();
    recent.recordAppends([append('s', 3, 4, 40)], all);
    const events = recent.after('s', 2);
    expect(revisions(events)).toEqual([3, 4]);
    expect(events![0]).toMatchObject({ streamId: 's', position: 39, data: { n: 3 }, metadata: { tenantId: 't' } });
  });

  it('sends a follower behind the run, or past it, to the store', () => {
    const recent = new RecentEvents();
    recent.recordAppends([append('s', 2, 5, 50)], all);
    expect(recent.after('s', 2)).toBeNull();
    expect(recent.after('s', 5)).toBeNull();
    expect(recent.after('other', -1)).toBeNull();
  });

  it('extends a run with the next commit and starts afresh after a gap', () => {
    const recent = new RecentEvents();
    recent.recordAppends([append('s', 2, 1, 10)], all);
    recent.recordAppends([append('s', 2, 3, 20)], all);
    expect(revisions(recent.after('s', -1))).toEqual([0, 1, 2, 3]);
    recent.recordAppends([append('s', 1, 9, 30)], all);
    expect(recent.after('s', 3)).toBeNull();
    expect(revisions(recent.after('s', 8))).toEqual([9]);
  });

  it('never replaces a run with an older one (a scan that read before the latest commit)', () => {
    const recent = new RecentEvents();
    recent.recordAppends([append('s', 3, 7, 70)], all);
    recent.recordRead([event('s', 5), event('s', 6)]);
    expect(revisions(recent.after('s', 4))).toEqual([5, 6, 7]);
    recent.recordRead([event('s', 7), event('s', 8)]);
    expect(revisions(recent.after('s', 4))).toEqual([5, 6, 7, 8]);
  });

  it('keeps nothing for a stream nobody follows, and forgets one whose follower left', () => {
    const recent = new RecentEvents();
    recent.recordAppends([append('s', 1, 0, 1)], all);
    recent.recordAppends([append('s', 1, 1, 2)], () => false);
    expect(recent.after('s', 0)).toBeNull();
    expect(recent.after('s', -1)).toBeNull();
  });

  it('keeps the newest EVENTS_PER_STREAM events of a stream, at most twice that while commits extend it', () => {
    const recent = new RecentEvents();
    const first = EVENTS_PER_STREAM + 44;
    recent.recordAppends([append('s', first, first - 1, first - 1)], all);
    expect(recent.after('s', 42)).toBeNull();
    expect(recent.after('s', 43)).toHaveLength(EVENTS_PER_STREAM);
    const kept: number[] = [];
    for (let revision = first; revision < first + 4 * EVENTS_PER_STREAM; revision++) {
      recent.recordAppends([append('s', 1, revision, revision)], all);
      // The oldest cursor it still answers: a run of `back` events ending at the head.
      let back = 2 * EVENTS_PER_STREAM + 1;
      while (back > 0 && recent.after('s', revision - back) === null) back--;
      expect(recent.after('s', revision - back)?.at(-1)?.revision).toBe(revision);
      kept.push(back);
    }
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(EVENTS_PER_STREAM);
    expect(Math.max(...kept)).toBeLessThanOrEqual(2 * EVENTS_PER_STREAM);
  });

  it('hands out at most `limit` events from the cursor, and nothing once cleared', () => {
    // Room for about seven of these events (each weighs 256 plus its data's characters).
    const recent = new RecentEvents(2_000);
    recent.recordAppends([append('s', 7, 6, 6)], all);
    expect(revisions(recent.after('s', 2, 3))).toEqual([3, 4, 5]);
    expect(revisions(recent.after('s', 4, 5))).toEqual([5, 6]);
    expect(revisions(recent.after('s', -1, 1))).toEqual([0]);
    recent.clear();
    expect(recent.after('s', -1)).toBeNull();
    // Its weight starts afresh too: what fits the budget is kept again.
    recent.recordAppends([append('t', 3, 2, 12)], all);
    expect(revisions(recent.after('t', -1))).toEqual([0, 1, 2]);
  });

  it('never changes what it handed out, nor the events a caller shares with it', () => {
    const recent = new RecentEvents();
    const shared = [event('s', 0), event('s', 1)];
    recent.recordAppends([append('s', 2, 1, 10)], all, () => shared);
    const handed = recent.after('s', -1);
    recent.recordAppends([append('s', 2, 3, 20)], all);
    expect(revisions(handed)).toEqual([0, 1]);
    expect(revisions(shared)).toEqual([0, 1]);
    expect(revisions(recent.after('s', -1))).toEqual([0, 1, 2, 3]);
  });

  it('keeps what all its events weigh under its budget, forgetting the streams updated longest ago first', () => {
    const recent = new RecentEvents(100_000);
    // Each event weighs 256 plus its data's characters: 10,000.
    const heavy = (streamId: string, revision: number): CommittedAppend => ({
      streamId,
      rows: [{ ...row(revision), data: JSON.stringify({ pad: 'x'.repeat(9_734) }) }],
      result: { nextRevision: revision, position: 100 + revision },
    });
    for (let k = 0; k < 10; k++) recent.recordAppends([heavy(`s${k}`, 0)], all);
    expect(recent.after('s0', -1)).not.toBeNull();
    // s0 is updated again, then one more stream passes the budget: s1, updated longest ago, goes.
    recent.recordAppends([append('s0', 1, 1, 500)], all);
    recent.recordAppends([heavy('late', 0)], all);
    expect(recent.after('s1', -1)).toBeNull();
    expect(revisions(recent.after('s0', -1))).toEqual([0, 1]);
    expect(recent.after('late', -1)).not.toBeNull();
    // A run heavier than the whole budget is not kept at all.
    recent.recordAppends([{ ...heavy('huge', 0), rows: [{ ...row(0), data: 'x'.repeat(100_000) }] }], all);
    expect(recent.after('huge', -1)).toBeNull();
    expect(recent.after('late', -1)).toBeNull();
  });
});
