import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { isTerminalEvent } from '../../executions/domain/execution-events';
import { executionIdOf, isExecutionStream } from '../../executions/execution-stream';
import { Projection } from '../projection';

type Tokens = { inputTokens?: unknown; outputTokens?: unknown } | null | undefined;

const count = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0);

/**
 * One row per execution with what GET /v1/usage groups by (docs/api.md#usage-and-budgets): its
 * tenant, conversation, provider and model (from run.started), and once it has ended, when and
 * the tokens its terminal event recorded (none recorded counts as 0). Only the first terminal
 * event counts, so applying a batch twice changes nothing.
 */
export const usageProjection: Projection = {
  name: 'usage',
  version: 1,
  tables: ['usage_executions'],
  create: (db) =>
    db.exec(`CREATE TABLE usage_executions (
      execution_id    TEXT PRIMARY KEY,
      tenant_id       TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      provider        TEXT NOT NULL,
      model           TEXT,
      ended_at        TEXT,
      input_tokens    INTEGER NOT NULL DEFAULT 0,
      output_tokens   INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;
    CREATE INDEX usage_by_tenant_end ON usage_executions (tenant_id, ended_at) WHERE ended_at IS NOT NULL`),
  bind(db: Database.Database) {
    const queued = db.prepare(
      'INSERT OR IGNORE INTO usage_executions (execution_id, tenant_id, conversation_id, provider) VALUES (@id, @tenantId, @conversationId, @provider)',
    );
    const started = db.prepare('UPDATE usage_executions SET provider = @provider, model = @model WHERE execution_id = @id AND ended_at IS NULL');
    const ended = db.prepare(
      'UPDATE usage_executions SET ended_at = @endedAt, input_tokens = @input, output_tokens = @output WHERE execution_id = @id AND ended_at IS NULL',
    );
    return (events: StoredEvent[]) => {
      for (const event of events) {
        if (!isExecutionStream(event.streamId)) continue;
        const id = executionIdOf(event.streamId);
        const data = event.data;
        if (event.type === 'run.queued') {
          queued.run({ id, tenantId: event.metadata.tenantId, conversationId: String(data.conversationId), provider: String(data.provider) });
        } else if (event.type === 'run.started') {
          started.run({ id, provider: String(data.provider), model: typeof data.model === 'string' ? data.model : null });
        } else if (isTerminalEvent(event.type)) {
          // Events from before every terminal event carried usage have none: 0 tokens, still one execution.
          const usage = data.usage as Tokens;
          ended.run({ id, endedAt: event.occurredAt, input: count(usage?.inputTokens), output: count(usage?.outputTokens) });
        }
      }
    };
  },
};
