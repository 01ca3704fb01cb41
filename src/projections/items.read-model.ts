import type Database from 'better-sqlite3';
import { ArtifactDescriptor } from '../executions/domain/execution-events';
import { ActionView } from '../executions/execution-view';

/** An execution's actions and artifacts, in creation order, from their projections. */
export class ExecutionItemsReadModel {
  private readonly actions;
  private readonly artifacts;

  constructor(db: Database.Database) {
    this.actions = db.prepare<[string], Record<string, string | null>>(
      `SELECT id, execution_id, kind, prompt, input_schema, tool, status, response, created_at, resolved_at
       FROM actions WHERE execution_id = ? ORDER BY sequence`,
    );
    this.artifacts = db.prepare<[string], { descriptor: string }>('SELECT descriptor FROM artifacts WHERE execution_id = ? ORDER BY sequence');
  }

  actionsOf(executionId: string): ActionView[] {
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

  artifactsOf(executionId: string): ArtifactDescriptor[] {
    return this.artifacts.all(executionId).map((row) => JSON.parse(row.descriptor));
  }
}
