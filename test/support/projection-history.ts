import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoredEvent } from '../../src/event-store/event-store';
import { Projection } from '../../src/read-models/projection';
import { ProjectionCatalog } from '../../src/read-models/projection-catalog';
import { PROJECTIONS } from '../../src/read-models/projections';

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
export function history(): StoredEvent[] {
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

export function dump(db: Database.Database, projection: Projection): unknown[] {
  return projection.tables.flatMap((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
}

/** A fresh read-model file with every projection's tables. */
export function readModelFile(name = 'rm.db'): Database.Database {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'runledger-projections-')), name));
  new ProjectionCatalog(db).prepare(PROJECTIONS);
  return db;
}
