import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NewEvent, StoredEvent } from '../../src/event-store/event-store';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { contentHash } from '../../src/read-models/content-hash';
import { PROJECTED_STREAM_PREFIXES } from '../../src/read-models/projection';
import { ProjectionCatalog } from '../../src/read-models/projection-catalog';
import { PROJECTIONS } from '../../src/read-models/projections';

/**
 * What projections:verify relies on: a projection's rows are a function of the events it has
 * applied, not of how they were cut into batches (live batches follow the traffic, a rebuild's
 * follow its pages). The same log applied in one batch, one event per batch and in random
 * batches must hash the same, runs cut off mid-stream included.
 */
const at = '2026-01-01T00:00:00.000Z';
const meta = (id: string, schemaVersion = 2) => ({ tenantId: 't1', schemaVersion, correlationId: id, causationId: null });

function runEvents(id: string, conversationId: string, kind: 'ended' | 'mid-stream' | 'action' | 'artifact'): NewEvent[] {
  const e = (type: string, data: Record<string, unknown>): NewEvent => ({ type, data, metadata: meta(id), occurredAt: at });
  const events = [
    e('run.queued', { conversationId, provider: 'scripted', input: { text: 'hi' }, requiredCapabilities: [], config: { script: [] }, idempotencyKey: null }),
    e('run.started', { provider: 'scripted' }),
    ...Array.from({ length: 6 }, (_, i) => e('output.text.delta', { delta: `d${i} ` })),
  ];
  if (kind === 'action') events.push(e('action.required', { actionId: `a-${id}`, kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null }));
  if (kind === 'artifact') {
    const artifact = { id: `f-${id}`, executionId: id, name: 'x.txt', mediaType: 'text/plain', createdAt: at, uri: null, metadata: {} };
    events.push(e('artifact.created', { artifact }), e('output.text.delta', { delta: 'more' }));
  }
  if (kind === 'ended') events.push(e('output.text.done', { text: 'all' }), e('run.completed', { usage: null }));
  return events;
}

async function storedLog(dir: string): Promise<StoredEvent[]> {
  const store = new EventStoreGateway(SqliteEventStore.open(join(dir, 'log.db')));
  await store.append(
    'conversation-c1',
    [{ type: 'conversation.created', data: { title: null, metadata: {} }, metadata: meta('c1', 1), occurredAt: at }],
    'no_stream',
  );
  const kinds = ['ended', 'mid-stream', 'action', 'artifact'] as const;
  // Interleaved a few events at a time, as concurrent runs land in the log.
  const streams = kinds.map((kind, i) => ({ id: `e${i}`, events: runEvents(`e${i}`, 'c1', kind), next: 0 }));
  while (streams.some((s) => s.next < s.events.length)) {
    for (const s of streams) {
      const part = s.events.slice(s.next, s.next + 2);
      if (part.length === 0) continue;
      await store.append(`execution-${s.id}`, part, s.next === 0 ? 'no_stream' : s.next - 1);
      s.next += part.length;
    }
  }
  const events = await store.readAll({ filter: { streamPrefixes: PROJECTED_STREAM_PREFIXES } });
  await store.close();
  return events;
}

function hashAfter(batches: StoredEvent[][]): Record<string, string> {
  const db = new Database(':memory:');
  const catalog = new ProjectionCatalog(db);
  const applies = PROJECTIONS.map((projection) => {
    catalog.reset(projection);
    return projection.bind(db);
  });
  for (const batch of batches) db.transaction(() => applies.forEach((apply) => apply(batch)))();
  const hashes = Object.fromEntries(
    PROJECTIONS.map((p) => [
      p.name,
      contentHash(db, p)
        .map((t) => t.hash)
        .join(','),
    ]),
  );
  db.close();
  return hashes;
}

describe('projections are independent of batch boundaries (what verify compares)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-determinism-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('one batch, one event per batch and random batches give the same rows', async () => {
    const events = await storedLog(dir);
    const whole = hashAfter([events]);
    expect(hashAfter(events.map((e) => [e]))).toEqual(whole);
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let round = 0; round < 20; round++) {
      const batches: StoredEvent[][] = [];
      for (let i = 0; i < events.length;) {
        const size = 1 + Math.floor(random() * 6);
        batches.push(events.slice(i, i + size));
        i += size;
      }
      expect(hashAfter(batches)).toEqual(whole);
    }
  });
});
