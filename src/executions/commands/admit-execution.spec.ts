import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Admission, ConversationFullError, MAX_OPEN_PER_CONVERSATION } from '../../conversations/domain/concurrency';
import { turnsStream } from '../../conversations/turns-stream';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { AdmitRequest, admitExecution } from './admit-execution';

const request = (executionId: string, concurrency: AdmitRequest['concurrency'] = 'parallel'): AdmitRequest => ({
  tenantId: 't',
  conversationId: 'c1',
  executionId,
  concurrency,
});

describe('admitExecution, racing starts of one conversation', () => {
  let store: SqliteEventStore;
  let commits: number;
  beforeEach(() => {
    store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-admit-')), 'events.db'));
    commits = 0;
    store.onCommit = () => void commits++;
  });
  afterEach(() => store.close());

  const admissions = async () => (await store.readStream(turnsStream('c1'))).map((e) => e.data as unknown as Admission);

  it('admits 50 concurrent parallel starts once each, in one order that every admission agrees with, in a few commits', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `e${i}`);
    const answers = await Promise.all(ids.map((id) => admitExecution(store, request(id))));
    expect(answers.map((a) => a.executionId)).toEqual(ids);
    const logged = await admissions();
    expect(logged.map((a) => a.executionId).sort()).toEqual([...ids].sort());
    // Nothing has ended: each admission's open list is the one before it plus itself.
    logged.forEach((admission, k) => expect(admission.open.map((t) => t.executionId)).toEqual(logged.slice(0, k + 1).map((a) => a.executionId)));
    // Racing one another they would need 50 commits; batched, the first goes alone and the rest together.
    expect(commits).toBeLessThanOrEqual(3);
  });

  it('answers a start admitted already (a retry racing the first) from the turns, appending nothing for it', async () => {
    const [first, again] = await Promise.all([admitExecution(store, request('e1')), admitExecution(store, request('e1'))]);
    expect(again).toMatchObject({ executionId: 'e1', waitsFor: [], interrupts: [] });
    expect(first.executionId).toBe('e1');
    expect((await admissions()).map((a) => a.executionId)).toEqual(['e1']);
  });

  it(`refuses only the starts past ${MAX_OPEN_PER_CONVERSATION} open ones, each alone`, async () => {
    const ids = Array.from({ length: MAX_OPEN_PER_CONVERSATION + 10 }, (_, i) => `e${i}`);
    const settled = await Promise.allSettled(ids.map((id) => admitExecution(store, request(id))));
    const refused = settled.filter((s) => s.status === 'rejected');
    expect(refused).toHaveLength(10);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConversationFullError);
    expect(await admissions()).toHaveLength(MAX_OPEN_PER_CONVERSATION);
  });

  it('prunes an ended turn from the streams, and keeps a turn this process still drives open without reading its stream', async () => {
    await Promise.all(['e1', 'e2', 'e3'].map((id) => admitExecution(store, request(id))));
    const event = (type: string) => ({
      type,
      data: {},
      occurredAt: '2026-01-01T00:00:00.000Z',
      metadata: { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null },
    });
    for (const id of ['e1', 'e2', 'e3']) await store.append(`execution-${id}`, [event('run.queued'), event('run.completed')], 'no_stream');
    const reads = jest.spyOn(store, 'lastEvent');
    // e2 has ended, but its session has not been let go yet: one admission longer in the list.
    const admitted = await admitExecution(store, { ...request('e4'), runningHere: (id) => id === 'e2' });
    expect(admitted.open.map((t) => t.executionId)).toEqual(['e2', 'e4']);
    expect(reads.mock.calls.map(([stream]) => stream).filter((s) => s.startsWith('execution-'))).toEqual(['execution-e1', 'execution-e3']);
  });
});
