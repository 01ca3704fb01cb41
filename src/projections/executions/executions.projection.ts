import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { ExecutionState, evolve } from '../../executions/domain/execution-state';
import { executionIdOf, isExecutionStream, ownerAfter, toRecorded } from '../../executions/execution-stream';
import { Projection } from '../projection';

export const EXECUTIONS_DDL = `
  CREATE TABLE executions (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    provider        TEXT NOT NULL,
    status          TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    input_text      TEXT NOT NULL,
    output_text     TEXT,
    text_so_far     TEXT NOT NULL,
    usage           TEXT,
    last_sequence   INTEGER NOT NULL,
    position        INTEGER NOT NULL,
    owner           TEXT,
    state           TEXT NOT NULL
  );
  CREATE INDEX executions_by_conversation ON executions (conversation_id, position);
  CREATE INDEX executions_history ON executions (conversation_id, status, position);
  CREATE INDEX executions_by_tenant ON executions (tenant_id, position);
  CREATE INDEX executions_in_flight ON executions (status) WHERE status IN ('queued', 'running', 'requires_action');
`;

/** Events that leave the state as it was but for its last sequence. */
const STREAMED = new Set(['output.text.delta', 'provider.event']);

interface Row {
  tenantId: string;
  state: ExecutionState;
  textSoFar: string;
  usage: unknown;
  lastSequence: number;
  position: number;
  owner: string | null;
}

/**
 * Every execution as one row: the domain's own fold (`evolve`) of its events, so the read model
 * and the decider can never disagree, plus what search and history need as columns. Deltas are
 * projected too, merged into one row update per execution per batch (last sequence, text so far).
 */
export const executionsProjection: Projection = {
  name: 'executions',
  version: 3,
  tables: ['executions'],
  create: (db) => db.exec(EXECUTIONS_DDL),
  bind(db: Database.Database) {
    const get = db.prepare<[string], { tenant_id: string; state: string; text_so_far: string; usage: string | null; last_sequence: number; position: number; owner: string | null }>(
      'SELECT tenant_id, state, text_so_far, usage, last_sequence, position, owner FROM executions WHERE id = ?',
    );
    const lastSequence = db.prepare<[string], { last_sequence: number }>('SELECT last_sequence FROM executions WHERE id = ?');
    const streamed = db.prepare('UPDATE executions SET last_sequence = ?, text_so_far = text_so_far || ? WHERE id = ?');
    const upsert = db.prepare(
      `INSERT INTO executions (id, tenant_id, conversation_id, provider, status, created_at, input_text, output_text, text_so_far, usage, last_sequence, position, owner, state)
       VALUES (@id, @tenantId, @conversationId, @provider, @status, @createdAt, @inputText, @outputText, @textSoFar, @usage, @lastSequence, @position, @owner, @state)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, output_text = excluded.output_text, text_so_far = excluded.text_so_far,
         usage = excluded.usage, last_sequence = excluded.last_sequence, owner = excluded.owner, state = excluded.state`,
    );
    const load = (id: string): Row | null => {
      const row = get.get(id);
      if (!row) return null;
      return {
        tenantId: row.tenant_id,
        // The stored state's lastSequence may trail the column (streamed output moves only the column).
        state: { ...JSON.parse(row.state), lastSequence: row.last_sequence },
        textSoFar: row.text_so_far,
        usage: row.usage === null ? null : JSON.parse(row.usage),
        lastSequence: row.last_sequence,
        position: row.position,
        owner: row.owner,
      };
    };
    /**
     * Streamed output changes nothing of the state but its last sequence: the common batch of
     * deltas moves two columns instead of re-encoding the state (which carries the config).
     */
    const appendStreamed = (id: string, events: StoredEvent[]): boolean => {
      if (!events.every((e) => STREAMED.has(e.type))) return false;
      const current = lastSequence.get(id)?.last_sequence;
      if (current === undefined) return false;
      const fresh = events.filter((e) => e.revision + 1 > current);
      if (fresh.length === 0) return true;
      const text = fresh.map((e) => (e.type === 'output.text.delta' ? (e.data as { delta: string }).delta : '')).join('');
      streamed.run(fresh[fresh.length - 1].revision + 1, text, id);
      return true;
    };
    return (events: StoredEvent[]) => {
      for (const [id, ofExecution] of groupByExecution(events)) {
        if (appendStreamed(id, ofExecution)) continue;
        const row = fold(load(id), id, ofExecution);
        if (!row) continue;
        const { state } = row;
        upsert.run({
          id,
          tenantId: row.tenantId,
          conversationId: state.conversationId,
          provider: state.provider,
          status: state.status,
          createdAt: state.createdAt,
          inputText: state.input.text,
          outputText: state.outputText,
          textSoFar: row.textSoFar,
          usage: row.usage === null ? null : JSON.stringify(row.usage),
          lastSequence: row.lastSequence,
          position: row.position,
          owner: row.owner,
          // lastSequence lives in its column only: streamed output moves the column, not the state.
          state: JSON.stringify({ ...state, lastSequence: undefined }),
        });
      }
    };
  },
};

/** Folds events onto a row, skipping what it already holds (so applying twice changes nothing). */
function fold(row: Row | null, id: string, events: StoredEvent[]): Row | null {
  let current = row;
  for (const event of events) {
    const sequence = event.revision + 1;
    if (current && sequence <= current.lastSequence) continue;
    if (!current && event.type !== 'run.queued') continue;
    const state = evolve(current?.state ?? null, toRecorded(event), id);
    current = {
      tenantId: current?.tenantId ?? event.metadata.tenantId,
      state,
      textSoFar: (current?.textSoFar ?? '') + (event.type === 'output.text.delta' ? (event.data as { delta: string }).delta : ''),
      usage: event.type === 'run.completed' ? ((event.data as { usage: unknown }).usage ?? null) : (current?.usage ?? null),
      lastSequence: sequence,
      position: current?.position ?? event.position,
      owner: ownerAfter(current?.owner ?? null, event),
    };
  }
  return current;
}

export function groupByExecution(events: StoredEvent[]): Map<string, StoredEvent[]> {
  const groups = new Map<string, StoredEvent[]>();
  for (const event of events) {
    if (!isExecutionStream(event.streamId)) continue;
    const id = executionIdOf(event.streamId);
    const group = groups.get(id);
    if (group) group.push(event);
    else groups.set(id, [event]);
  }
  return groups;
}
