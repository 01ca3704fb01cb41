import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { ActionState, evolveActions } from '../../executions/domain/execution-state';
import { toRecorded } from '../../executions/execution-stream';
import { groupByExecution } from '../execution-groups';
import { Projection } from '../projection';
import { STREAMED_EVENT_TYPES } from '../../executions/domain/execution-events';

interface ActionRow {
  id: string;
  sequence: number;
  kind: string;
  prompt: string;
  input_schema: string | null;
  tool: string | null;
  status: string;
  response: string | null;
  created_at: string;
  resolved_at: string | null;
}

const toState = (row: ActionRow): ActionState => ({
  id: row.id,
  kind: row.kind as ActionState['kind'],
  prompt: row.prompt,
  inputSchema: row.input_schema === null ? null : JSON.parse(row.input_schema),
  tool: row.tool === null ? null : JSON.parse(row.tool),
  status: row.status as ActionState['status'],
  response: row.response === null ? null : JSON.parse(row.response),
  createdAt: row.created_at,
  resolvedAt: row.resolved_at,
});

const json = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));

/**
 * Every action (docs/api.md#actions) as a row, in creation order per execution. How an event
 * changes them is the domain's `evolveActions`, the very fold `evolve` uses, applied to the
 * execution's rows: the read model cannot disagree with what `decide` sees.
 */
export const actionsProjection: Projection = {
  name: 'actions',
  version: 1,
  tables: ['actions'],
  create: (db) =>
    db.exec(`CREATE TABLE actions (
      id            TEXT PRIMARY KEY,
      execution_id  TEXT NOT NULL,
      sequence      INTEGER NOT NULL,
      kind          TEXT NOT NULL,
      prompt        TEXT NOT NULL,
      input_schema  TEXT,
      tool          TEXT,
      status        TEXT NOT NULL,
      response      TEXT,
      created_at    TEXT NOT NULL,
      resolved_at   TEXT
    );
    CREATE INDEX actions_by_execution ON actions (execution_id, sequence)`),
  bind(db: Database.Database) {
    const ofExecution = db.prepare<[string], ActionRow>(
      `SELECT id, sequence, kind, prompt, input_schema, tool, status, response, created_at, resolved_at
       FROM actions WHERE execution_id = ? ORDER BY sequence`,
    );
    const insert = db.prepare(
      `INSERT OR IGNORE INTO actions (id, execution_id, sequence, kind, prompt, input_schema, tool, status, response, created_at, resolved_at)
       VALUES (@id, @executionId, @sequence, @kind, @prompt, @inputSchema, @tool, @status, @response, @createdAt, @resolvedAt)`,
    );
    const update = db.prepare('UPDATE actions SET status = @status, response = @response, resolved_at = @resolvedAt WHERE id = @id');
    return (events: StoredEvent[]) => {
      for (const [executionId, ofExecutionEvents] of groupByExecution(events)) {
        // Streamed output leaves the actions as they are: no read of them for a batch of it.
        if (ofExecutionEvents.every((event) => STREAMED_EVENT_TYPES.has(event.type))) continue;
        const rows = ofExecution.all(executionId);
        const stored = new Map(rows.map((row) => [row.id, toState(row)]));
        const sequences = new Map(rows.map((row) => [row.id, row.sequence]));
        let actions = [...stored.values()];
        for (const event of ofExecutionEvents) {
          const next = evolveActions(actions, toRecorded(event));
          if (next === actions) continue;
          // An event applied again (a replayed batch) adds no second row for an action already held.
          actions = next.filter((action, index) => next.findIndex((a) => a.id === action.id) === index);
          for (const action of actions) if (!sequences.has(action.id)) sequences.set(action.id, event.revision + 1);
        }
        for (const action of actions) {
          const before = stored.get(action.id);
          const row = { id: action.id, status: action.status, response: json(action.response), resolvedAt: action.resolvedAt };
          if (!before) {
            insert.run({
              ...row,
              executionId,
              sequence: sequences.get(action.id),
              kind: action.kind,
              prompt: action.prompt,
              inputSchema: json(action.inputSchema),
              tool: json(action.tool),
              createdAt: action.createdAt,
            });
          } else if (before.status !== action.status || before.resolvedAt !== action.resolvedAt || json(before.response) !== row.response) {
            update.run(row);
          }
        }
      }
    };
  },
};
