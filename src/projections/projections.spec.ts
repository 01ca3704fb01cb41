import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoredEvent } from '../event-store/event-store';
import { Projection } from './projection';
import { ProjectionCatalog } from './projection-catalog';
import { executionsProjection } from './executions/executions.projection';
import { ExecutionsReadModel } from './executions/executions.read-model';
import { PROJECTIONS } from './read-model.module';

const meta = { tenantId: 't', schemaVersion: 2, correlationId: null, causationId: null };
let position = 0;
const event = (streamId: string, revision: number, type: string, data: Record<string, unknown>): StoredEvent => ({
  id: `e${++position}`,
  streamId,
  revision,
  position,
  type,
  data,
  metadata: meta,
  occurredAt: `2026-09-02T10:00:${String(position % 60).padStart(2, '0')}.000Z`,
});

/** A conversation and an execution that streams, asks, is answered, makes an artifact and completes. */
function history(): StoredEvent[] {
  const ex = 'execution-x1';
  const queued = { conversationId: 'c1', provider: 'scripted', input: { text: 'hi' }, requiredCapabilities: [], config: {}, idempotencyKey: null };
  return [
    event('conversation-c1', 0, 'conversation.created', { title: 't', metadata: { a: 1 } }),
    event(ex, 0, 'run.queued', queued),
    event(ex, 1, 'run.started', { provider: 'scripted' }),
    event(ex, 2, 'output.text.delta', { delta: 'he' }),
    event(ex, 3, 'action.required', { actionId: 'a1', kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null }),
    event(ex, 4, 'action.required', { actionId: 'a2', kind: 'input', prompt: 'v?', inputSchema: { type: 'string' }, tool: null }),
    event(ex, 5, 'action.responded', { actionId: 'a1', response: { decision: 'approve' } }),
    event(ex, 6, 'artifact.created', {
      artifact: { id: 'f1', executionId: 'x1', name: 'r', mediaType: 'text/plain', createdAt: 'now', uri: null, metadata: {} },
    }),
    event(ex, 7, 'output.text.delta', { delta: 'llo' }),
    event(ex, 8, 'output.text.done', { text: 'hello' }),
    event(ex, 9, 'run.completed', { usage: { inputTokens: 1, outputTokens: 2 } }),
  ];
}

function dump(db: Database.Database, projection: Projection): unknown[] {
  return projection.tables.flatMap((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
}

describe('projections', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(join(mkdtempSync(join(tmpdir(), 'runledger-projections-')), 'rm.db'));
    new ProjectionCatalog(db).prepare(PROJECTIONS);
  });
  afterEach(() => db.close());

  it.each(PROJECTIONS.map((p) => [p.name, p] as const))('%s: the same events applied twice, or in two batches, give the same rows', (_, projection) => {
    const apply = projection.bind(db);
    const events = history();
    db.transaction(() => apply(events))();
    const once = dump(db, projection);
    expect(once.length).toBeGreaterThan(0);
    db.transaction(() => apply(events))();
    expect(dump(db, projection)).toEqual(once);
    for (const table of projection.tables) db.exec(`DELETE FROM ${table}`);
    db.transaction(() => apply(events.slice(0, 5)))();
    db.transaction(() => apply(events.slice(3)))();
    expect(dump(db, projection)).toEqual(once);
  });

  it('the execution row holds the resource and the usage, its progress the last sequence; the open action is cancelled at the end', () => {
    for (const projection of PROJECTIONS) {
      const apply = projection.bind(db);
      db.transaction(() => apply(history()))();
    }
    const row = db.prepare('SELECT * FROM executions').get() as Record<string, any>;
    expect(row).toMatchObject({ id: 'x1', tenant_id: 't', status: 'completed', output_text: 'hello' });
    expect(db.prepare('SELECT * FROM execution_progress').all()).toEqual([{ id: 'x1', last_sequence: 10 }]);
    expect(JSON.parse(row.usage)).toEqual({ inputTokens: 1, outputTokens: 2 });
    expect(JSON.parse(row.state).artifactCount).toBe(1);
    const actions = db.prepare('SELECT id, status FROM actions ORDER BY sequence').all();
    expect(actions).toEqual([
      { id: 'a1', status: 'resolved' },
      { id: 'a2', status: 'cancelled' },
    ]);
  });

  it('a batch of deltas alone moves only the progress row, forward only, and reads take their last sequence from it', () => {
    const apply = executionsProjection.bind(db);
    const events = history();
    const wide = () => db.prepare('SELECT * FROM executions').all();
    db.transaction(() => apply(events.slice(0, 3)))();
    const started = wide();
    db.transaction(() => apply(events.slice(3, 4)))();
    expect(wide()).toEqual(started);
    expect(db.prepare('SELECT last_sequence FROM execution_progress').pluck().get()).toBe(3);
    // The same deltas again, or an older batch, leave it where it is.
    db.transaction(() => apply(events.slice(3, 4)))();
    db.transaction(() => apply(events.slice(2, 3)))();
    const reads = new ExecutionsReadModel(db);
    expect(reads.byId('x1')).toMatchObject({ lastSequence: 3, state: { status: 'running', lastSequence: 3 } });
    expect(reads.search({ tenantId: 't', limit: 10 }).map((r) => r.lastSequence)).toEqual([3]);
    db.transaction(() => apply(events.slice(4)))();
    expect(reads.byId('x1')).toMatchObject({ lastSequence: 10, state: { status: 'completed', lastSequence: 10 } });
  });

  it('a read model of executions version 3 (progress on the wide row) is dropped and rebuilt at start', () => {
    const old = new Database(join(mkdtempSync(join(tmpdir(), 'runledger-projections-')), 'old.db'));
    try {
      old.exec(`CREATE TABLE executions (id TEXT PRIMARY KEY, text_so_far TEXT NOT NULL, last_sequence INTEGER NOT NULL);
                INSERT INTO executions VALUES ('x1', 'he', 3);
                CREATE TABLE checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
                CREATE TABLE projection_versions (projection TEXT PRIMARY KEY, version INTEGER NOT NULL);
                INSERT INTO checkpoints VALUES ('executions', 4);
                INSERT INTO projection_versions VALUES ('executions', 3)`);
      const catalog = new ProjectionCatalog(old);
      expect(catalog.prepare([executionsProjection])).toEqual(['executions']);
      expect(catalog.checkpoint('executions')).toBe(0);
      const columns = old.prepare('SELECT name FROM pragma_table_info(?)').pluck();
      expect(columns.all('executions')).not.toContain('text_so_far');
      expect(columns.all('execution_progress')).toEqual(['id', 'last_sequence']);
      expect(old.prepare('SELECT count(*) FROM executions').pluck().get()).toBe(0);
    } finally {
      old.close();
    }
  });
});
