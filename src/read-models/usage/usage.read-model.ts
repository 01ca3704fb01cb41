import type Database from 'better-sqlite3';
import { UsageGroup, UsageGrouping, UsageTotals, UsageWindow } from './usage.query';

/**
 * The group key of each grouping as SQL. A model left out (scripted names none) is '' in SQL, so
 * it sorts first and pages like any key, and null in the answer.
 */
const KEY: Record<UsageGrouping, string> = {
  provider: 'provider',
  model: "COALESCE(model, '')",
  conversation: 'conversation_id',
  day: 'substr(ended_at, 1, 10)',
};

const SUMS = 'COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens, COUNT(*) AS executions';
const IN_WINDOW = 'tenant_id = @tenantId AND ended_at IS NOT NULL AND ended_at >= @from AND ended_at < @to';

type GroupRow = UsageTotals & { key: string };

/** Sums over the usage projection's rows, by the time each execution ended. */
export class UsageReadModel {
  private readonly totalsStatement: Database.Statement<[Record<string, unknown>], UsageTotals>;
  private readonly groupStatements: Record<UsageGrouping, Database.Statement<[Record<string, unknown>], GroupRow>>;

  constructor(db: Database.Database) {
    this.totalsStatement = db.prepare(`SELECT ${SUMS} FROM usage_executions WHERE ${IN_WINDOW}`);
    const grouped = (key: string) =>
      db.prepare<[Record<string, unknown>], GroupRow>(
        `SELECT ${key} AS key, ${SUMS} FROM usage_executions WHERE ${IN_WINDOW}
         GROUP BY 1 HAVING @after IS NULL OR key > @after ORDER BY 1 LIMIT @limit`,
      );
    this.groupStatements = {
      provider: grouped(KEY.provider),
      model: grouped(KEY.model),
      conversation: grouped(KEY.conversation),
      day: grouped(KEY.day),
    };
  }

  totals(tenantId: string, window: UsageWindow): UsageTotals {
    return this.totalsStatement.get({ tenantId, ...window })!;
  }

  /** Up to `limit` groups with keys after `after` (its SQL form; null: from the first). */
  groups(tenantId: string, window: UsageWindow, groupBy: UsageGrouping, after: string | null, limit: number): UsageGroup[] {
    return this.groupStatements[groupBy].all({ tenantId, ...window, after, limit }).map((row) => ({
      key: groupBy === 'model' && row.key === '' ? null : row.key,
      inputTokens: row.inputTokens,
      outputTokens: row.outputTokens,
      executions: row.executions,
    }));
  }
}
