import { Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { ExecutionEvent } from '../../executions/domain/execution-events';
import { executionStream, toNewEvents } from '../../executions/execution-stream';
import { openReadModelDatabase } from '../read-model-database';
import { ExecutionIndex } from './execution-index';

const at = '2026-09-02T10:00:00.000Z';
const queued = (conversationId: string, text: string): ExecutionEvent => ({
  type: 'run.queued',
  data: { conversationId, provider: 'scripted', input: { text }, requiredCapabilities: [], config: {}, idempotencyKey: null },
});
const started: ExecutionEvent = { type: 'run.started', data: { provider: 'scripted' } };
const asks = (actionId: string): ExecutionEvent => ({
  type: 'action.required',
  data: { actionId, kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null },
});
const answers = (actionId: string): ExecutionEvent => ({ type: 'action.responded', data: { actionId, response: { decision: 'approve' } } });
const done = (text: string): ExecutionEvent[] => [{ type: 'output.text.done', data: { text } }, { type: 'run.completed', data: { usage: null } }];

describe('execution index (read model with its checkpoint)', () => {
  let dir: string;
  let store: SqliteEventStore;
  const opened: Database.Database[] = [];
  const readModels = () => {
    const db = openReadModelDatabase(join(dir, 'read-models.db'));
    opened.push(db);
    return db;
  };
  const append = (id: string, events: ExecutionEvent[]) =>
    store.append(executionStream(id), toNewEvents(id, events, { tenantId: 'acme', occurredAt: at }), 'any');

  // The rebuild warnings are the expected outcome of two tests, not news (jest isolates this file's modules).
  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'runledger-index-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
    await append('e1', [queued('c1', 'one'), started, ...done('first')]);
    await append('e2', [queued('c1', 'two'), started, asks('a'), asks('b'), answers('a')]);
    await append('e3', [queued('c2', 'three')]);
  });
  afterEach(async () => {
    for (const db of opened.splice(0)) if (db.open) db.close();
    await store.close();
  });

  it('answers statuses, a conversation oldest first, and the executions in flight', async () => {
    const index = new ExecutionIndex(store, readModels());
    expect(await index.ofConversation('c1')).toEqual([
      { id: 'e1', tenantId: 'acme', conversationId: 'c1', provider: 'scripted', status: 'completed', createdAt: at, inputText: 'one', outputText: 'first', pendingActions: 0 },
      { id: 'e2', tenantId: 'acme', conversationId: 'c1', provider: 'scripted', status: 'requires_action', createdAt: at, inputText: 'two', outputText: null, pendingActions: 1 },
    ]);
    expect((await index.nonTerminal()).map((e) => [e.id, e.status])).toEqual([['e2', 'requires_action'], ['e3', 'queued']]);
    await append('e2', [answers('b')]);
    expect((await index.get('e2'))?.status).toBe('running');
  });

  it('resumes from its checkpoint after a restart instead of re-reading the log', async () => {
    const first = readModels();
    await new ExecutionIndex(store, first).catchUp();
    first.close();
    await append('e3', [started]);
    const readAll = jest.spyOn(store, 'readAll');
    const index = new ExecutionIndex(store, readModels());
    expect((await index.get('e3'))?.status).toBe('running');
    // Ten events were applied before: the check reads the one at the checkpoint, the pull what follows.
    expect(readAll.mock.calls.map(([options]) => options?.after)).toEqual([9, 10]);
  });

  it('rebuilds from the events when its table version changes', async () => {
    const first = readModels();
    await new ExecutionIndex(store, first).catchUp();
    first.prepare('UPDATE execution_index_version SET version = 0').run();
    first.close();
    const index = new ExecutionIndex(store, readModels());
    expect((await index.ofConversation('c1')).map((e) => e.status)).toEqual(['completed', 'requires_action']);
  });

  it('rebuilds when its checkpoint is not in the event log (another store behind the same file)', async () => {
    const first = readModels();
    await new ExecutionIndex(store, first).catchUp();
    first.close();
    await store.close();
    store = SqliteEventStore.open(join(dir, 'other-events.db'));
    await append('x1', [queued('c9', 'elsewhere')]);
    const index = new ExecutionIndex(store, readModels());
    expect((await index.nonTerminal()).map((e) => e.id)).toEqual(['x1']);
    expect(await index.ofConversation('c1')).toEqual([]);
  });
});
