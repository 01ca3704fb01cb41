import type Database from 'better-sqlite3';
import { ActionView } from '../../executions/execution-view';

/** An execution's actions, in creation order, from the actions projection. */
export class ActionsReadModel {
  private readonly actions;

  constructor(db: Database.Database) {
    this.actions = db.prepare<[string], Record<string, string | null>>(
      `SELECT id, execution_id, kind, prompt, input_schema, tool, status, response, created_at, resolved_at
       FROM actions WHERE execution_id = ? ORDER BY sequence`,
    );
  }

  of(executionId: string): ActionView[] {
    return this.actions.all(executionId).map((row) => ({
      id: row.id!,
      executionId: row.execution_id!,
      kind: row.kind as ActionView['kind'],
      prompt: row.prompt!,
      inputSchema: row.input_schema === null ? null : JSON.parse(row.input_schema),
      tool: row.tool === null ? null : JSON.parse(row.tool),
      status: row.status as ActionView['status'],
      response: row.response === null ? null : JSON.parse(row.response),
      createdAt: row.created_at!,
      resolvedAt: row.resolved_at,
    }));
  }
}
