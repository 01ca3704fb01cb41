import Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { readModelFile } from '../../../test/support/projection-history';
import { usageProjection } from './usage.projection';
import { UsageReadModel } from './usage.read-model';

let position = 0;
const event = (id: string, revision: number, type: string, data: Record<string, unknown>, at: string, tenantId = 't1'): StoredEvent => ({
  id: `e${++position}`,
  streamId: `execution-${id}`,
  revision,
  position,
  type,
  data,
  metadata: { tenantId, schemaVersion: 2, correlationId: null, causationId: null },
  occurredAt: at,
});
const run = (id: string, ended: string, end: Record<string, unknown>, opts: { tenant?: string; model?: string; conversation?: string; type?: string } = {}) => [
  event(id, 0, 'run.queued', { conversationId: opts.conversation ?? 'c1', provider: 'p1' }, ended, opts.tenant),
  event(id, 1, 'run.started', { provider: 'p1', ...(opts.model && { model: opts.model }) }, ended, opts.tenant),
  event(id, 2, 'output.text.delta', { delta: 'x' }, ended, opts.tenant),
  event(id, 3, opts.type ?? 'run.completed', end, ended, opts.tenant),
];
const MONTH = { from: '2026-09-01T00:00:00.000Z', to: '2026-10-01T00:00:00.000Z' };

describe('the usage projection', () => {
  let db: Database.Database;
  let apply: (events: StoredEvent[]) => void;
  let model: UsageReadModel;
  beforeEach(() => {
    db = readModelFile();
    apply = usageProjection.bind(db);
    model = new UsageReadModel(db);
  });
  afterEach(() => db.close());

  it('sums every ended run of the tenant in the window by its end time; usage-less ends count as executions with 0 tokens', () => {
    const events = [
      ...run('a', '2026-09-02T10:00:00.000Z', { usage: { inputTokens: 10, outputTokens: 5 } }, { model: 'm1' }),
      ...run('b', '2026-09-03T10:00:00.000Z', { error: { code: 'X', message: 'x' }, usage: { inputTokens: 1, outputTokens: 1 } }, { type: 'run.failed' }),
      // Written before terminal events carried usage.
      ...run('c', '2026-09-03T11:00:00.000Z', { reason: null, providerCleanupError: null }, { type: 'run.cancelled', conversation: 'c2' }),
      ...run('d', '2026-08-31T23:59:59.999Z', { usage: { inputTokens: 100, outputTokens: 100 } }),
      ...run('e', '2026-09-04T00:00:00.000Z', { usage: { inputTokens: 7, outputTokens: 7 } }, { tenant: 't2' }),
    ];
    apply(events);
    // Applied twice: the same rows.
    apply(events);
    expect(model.totals('t1', MONTH)).toEqual({ inputTokens: 11, outputTokens: 6, executions: 3 });
    expect(model.groups('t1', MONTH, 'model', null, 10)).toEqual([
      { key: null, inputTokens: 1, outputTokens: 1, executions: 2 },
      { key: 'm1', inputTokens: 10, outputTokens: 5, executions: 1 },
    ]);
    expect(model.groups('t1', MONTH, 'day', null, 10).map((g) => g.key)).toEqual(['2026-09-02', '2026-09-03']);
    expect(model.groups('t1', MONTH, 'conversation', 'c1', 10).map((g) => g.key)).toEqual(['c2']);
    expect(model.groups('t1', MONTH, 'model', '', 10).map((g) => g.key)).toEqual(['m1']);
    expect(model.totals('t2', MONTH)).toEqual({ inputTokens: 7, outputTokens: 7, executions: 1 });
  });

  it('a run still going is not counted; only its first end counts', () => {
    apply(run('a', '2026-09-02T10:00:00.000Z', { usage: { inputTokens: 1, outputTokens: 1 } }).slice(0, 3));
    expect(model.totals('t1', MONTH).executions).toBe(0);
    apply([event('a', 3, 'run.completed', { usage: { inputTokens: 1, outputTokens: 1 } }, '2026-09-02T10:00:00.000Z')]);
    apply([event('a', 4, 'run.failed', { error: {}, usage: { inputTokens: 50, outputTokens: 50 } }, '2026-09-02T10:00:01.000Z')]);
    expect(model.totals('t1', MONTH)).toEqual({ inputTokens: 1, outputTokens: 1, executions: 1 });
  });
});
