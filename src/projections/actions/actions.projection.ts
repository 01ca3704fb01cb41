import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { isTerminalEvent } from '../../executions/domain/execution-events';
import { executionIdOf, isExecutionStream } from '../../executions/execution-stream';
import { Projection } from '../projection';

/** Every action (docs/api.md#actions) as a row, in creation order per execution. */
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
    const required = db.prepare(
      `INSERT OR IGNORE INTO actions (id, execution_id, sequence, kind, prompt, input_schema, tool, status, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    );
    const responded = db.prepare("UPDATE actions SET status = 'resolved', response = ?, resolved_at = ? WHERE id = ? AND status = 'pending'");
    // Unanswered actions die with their execution (docs/api.md#actions).
    const ended = db.prepare("UPDATE actions SET status = 'cancelled', resolved_at = ? WHERE execution_id = ? AND status = 'pending'");
    return (events: StoredEvent[]) => {
      for (const event of events) {
        if (!isExecutionStream(event.streamId)) continue;
        const executionId = executionIdOf(event.streamId);
        const data = event.data as Record<string, unknown>;
        if (event.type === 'action.required') {
          required.run(
            data.actionId,
            executionId,
            event.revision + 1,
            data.kind,
            data.prompt,
            data.inputSchema == null ? null : JSON.stringify(data.inputSchema),
            data.tool == null ? null : JSON.stringify(data.tool),
            event.occurredAt,
          );
        } else if (event.type === 'action.responded') {
          responded.run(JSON.stringify(data.response), event.occurredAt, data.actionId);
        } else if (isTerminalEvent(event.type)) {
          ended.run(event.occurredAt, executionId);
        }
      }
    };
  },
};
