import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoredEvent } from '../event-store/event-store';
import { Projection } from './projection';
import { ProjectionCatalog } from './projection-catalog';
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
    event(ex, 6, 'artifact.created', { artifact: { id: 'f1', executionId: 'x1', name: 'r', mediaType: 'text/plain', createdAt: 'now', uri: null, metadata: {} } }),
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

  it('the execution row holds the resource, the text so far and the usage; the open action is cancelled at the end', () => {
    for (const projection of PROJECTIONS) {
      const apply = projection.bind(db);
      db.transaction(() => apply(history()))();
    }
    const row = db.prepare('SELECT * FROM executions').get() as Record<string, any>;
    expect(row).toMatchObject({ id: 'x1', tenant_id: 't', status: 'completed', output_text: 'hello', text_so_far: 'hello', last_sequence: 10 });
    expect(JSON.parse(row.usage)).toEqual({ inputTokens: 1, outputTokens: 2 });
    expect(JSON.parse(row.state).artifactCount).toBe(1);
    const actions = db.prepare('SELECT id, status FROM actions ORDER BY sequence').all();
    expect(actions).toEqual([{ id: 'a1', status: 'resolved' }, { id: 'a2', status: 'cancelled' }]);
  });
});
