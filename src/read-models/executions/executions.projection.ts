import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { dataJsonOf } from '../../event-store/stored-row';
import { ExecutionState, evolve } from '../../executions/domain/execution-state';
import { ownerAfter, toRecorded } from '../../executions/execution-stream';
import { groupByExecution } from '../execution-groups';
import { Projection } from '../projection';
import { STREAMED_EVENT_TYPES } from '../../executions/domain/execution-events';
import { withoutQueuedPart } from './queued-part';

export const EXECUTIONS_DDL = `
  CREATE TABLE executions (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    provider        TEXT NOT NULL,
    status          TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    output_text     TEXT,
    usage           TEXT,
    error_code      TEXT,
    position        INTEGER NOT NULL,
    owner           TEXT,
    state           TEXT NOT NULL
  );
  -- What run.queued set and no later event changes (the input, the config, a Responses request):
  -- its data as stored, written once. SQLite rewrites a whole row on any update, so in the wide
  -- row a 60 kB config was parsed, serialized and rewritten on every change of status.
  CREATE TABLE execution_requests (
    id     TEXT PRIMARY KEY,
    queued TEXT NOT NULL
  );
  -- How far each execution's row has been folded: the one thing streamed output changes. It has a
  -- table of its own because SQLite rewrites a whole row on any update, and the executions row
  -- holds the state and the output text (up to ~1 MB): updating it per batch of deltas made the
  -- projector's transaction grow with every execution that streams.
  CREATE TABLE execution_progress (
    id            TEXT PRIMARY KEY,
    last_sequence INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX executions_by_conversation ON executions (conversation_id, position);
  CREATE INDEX executions_history ON executions (conversation_id, status, position);
  CREATE INDEX executions_by_tenant ON executions (tenant_id, position);
  CREATE INDEX executions_by_error_code ON executions (tenant_id, error_code, position) WHERE error_code IS NOT NULL;
  CREATE INDEX executions_in_flight ON executions (status) WHERE status IN ('queued', 'running', 'requires_action');
`;

interface Row {
  tenantId: string;
  /** Without run.queued's part once stored (queued-part.ts). */
  state: ExecutionState;
  /** The run.queued folded in this batch (a new row): its part is stored now. */
  queued: StoredEvent | null;
  usage: unknown;
  lastSequence: number;
  position: number;
  owner: string | null;
}

/**
 * Every execution as the domain's own fold (`evolve`) of its events, so the read model and the
 * decider can never disagree: run.queued's part in `execution_requests`, the rest in one row with
 * what search and history need as columns, its last sequence in `execution_progress`. Deltas are
 * projected too, as one narrow update of that sequence per execution per batch. The text streamed
 * so far is not kept: no query reads it (the final text comes from `output.text.done`, and a read
 * by id folds the stream's tail onto the row).
 */
export const executionsProjection: Projection = {
  name: 'executions',
  version: 6,
  tables: ['executions', 'execution_progress', 'execution_requests'],
  create: (db) => db.exec(EXECUTIONS_DDL),
  bind(db: Database.Database) {
    const get = db.prepare<[string], { tenant_id: string; state: string; usage: string | null; last_sequence: number; position: number; owner: string | null }>(
      `SELECT e.tenant_id, e.state, e.usage, p.last_sequence, e.position, e.owner
       FROM executions e JOIN execution_progress p ON p.id = e.id WHERE e.id = ?`,
    );
    // Only forward, so a batch applied twice (or older than the row) changes nothing.
    const streamed = db.prepare('UPDATE execution_progress SET last_sequence = @sequence WHERE id = @id AND last_sequence < @sequence');
    const insert = db.prepare(
      `INSERT INTO executions (id, tenant_id, conversation_id, provider, status, created_at, output_text, usage, error_code, position, owner, state)
       VALUES (@id, @tenantId, @conversationId, @provider, @status, @createdAt, @outputText, @usage, @errorCode, @position, @owner, @state)`,
    );
    const update = db.prepare(
      `UPDATE executions SET status = @status, output_text = @outputText, usage = @usage, error_code = @errorCode, owner = @owner, state = @state
       WHERE id = @id`,
    );
    const progress = db.prepare(
      `INSERT INTO execution_progress (id, last_sequence) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET last_sequence = excluded.last_sequence`,
    );
    const request = db.prepare('INSERT INTO execution_requests (id, queued) VALUES (?, ?) ON CONFLICT (id) DO NOTHING');
    const load = (id: string): Row | null => {
      const row = get.get(id);
      if (!row) return null;
      return {
        tenantId: row.tenant_id,
        // Without run.queued's part (execution_requests), which folding never needs. The stored
        // state's lastSequence may trail the progress table (streamed output moves only that).
        state: { ...JSON.parse(row.state), lastSequence: row.last_sequence },
        queued: null,
        usage: row.usage === null ? null : JSON.parse(row.usage),
        lastSequence: row.last_sequence,
        position: row.position,
        owner: row.owner,
      };
    };
    return (events: StoredEvent[]) => {
      for (const [id, ofExecution] of groupByExecution(events)) {
        // Streamed output changes nothing of the state but its last sequence. Without a row yet
        // (no run.queued seen) there is nothing to move, as the fold below would also find.
        if (ofExecution.every((e) => STREAMED_EVENT_TYPES.has(e.type))) {
          streamed.run({ sequence: ofExecution[ofExecution.length - 1].revision + 1, id });
          continue;
        }
        const loaded = load(id);
        const row = fold(loaded, id, ofExecution);
        // Nothing new (a batch applied again): the wide row is not rewritten for nothing.
        if (!row || row.lastSequence === loaded?.lastSequence) continue;
        const { state, queued } = row;
        const changed = {
          id,
          status: state.status,
          outputText: state.outputText,
          usage: row.usage === null ? null : JSON.stringify(row.usage),
          errorCode: state.error?.code ?? null,
          owner: row.owner,
          // lastSequence lives in execution_progress only: streamed output moves that, not the state.
          state: JSON.stringify({ ...(queued ? withoutQueuedPart(state, queued.data) : state), lastSequence: undefined }),
        };
        // A loaded row's state lacks run.queued's part: only a new row (its run.queued in this batch) has it to insert.
        if (loaded) update.run(changed);
        else {
          request.run(id, dataJsonOf(queued!));
          insert.run({
            ...changed,
            tenantId: row.tenantId,
            conversationId: state.conversationId,
            provider: state.provider,
            createdAt: state.createdAt,
            position: row.position,
          });
        }
        progress.run(id, row.lastSequence);
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
      queued: event.type === 'run.queued' ? event : (current?.queued ?? null),
      // Every terminal event carries it (docs/api.md#usage-and-budgets).
      usage: state.usage ?? null,
      lastSequence: sequence,
      position: current?.position ?? event.position,
      owner: ownerAfter(current?.owner ?? null, event),
    };
  }
  return current;
}
