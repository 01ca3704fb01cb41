import type Database from 'better-sqlite3';
import { ExecutionState, ExecutionStatus } from '../../executions/domain/execution-state';
import { withQueuedPart } from './queued-part';

export interface ExecutionRow {
  tenantId: string;
  state: ExecutionState;
  lastSequence: number;
  position: number;
}

export interface ExecutionSummary {
  id: string;
  status: ExecutionStatus;
  provider: string;
  createdAt: string;
}

export interface SearchFilters {
  tenantId: string;
  conversationId?: string;
  status?: ExecutionStatus;
  provider?: string;
  /** The `run.failed` code (docs/api.md#executions). */
  errorCode?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Only executions created before this position (the cursor: newest first). */
  beforePosition?: number;
  limit: number;
}

/**
 * The row with its last sequence, which lives in execution_progress (streamed output moves only
 * that), and run.queued's part of the state, which lives in execution_requests (queued-part.ts).
 */
const COLUMNS = 'e.tenant_id, e.state, r.queued, p.last_sequence, e.position';
const JOINS = 'JOIN execution_progress p ON p.id = e.id JOIN execution_requests r ON r.id = e.id';

/** Queries over the executions projection: indexed, limited, never a scan of the log. */
export class ExecutionsReadModel {
  private readonly statements;
  private readonly searches = new Map<string, Database.Statement>();

  constructor(private readonly db: Database.Database) {
    this.statements = {
      byId: db.prepare<[string], StoredExecutionRow>(`SELECT ${COLUMNS} FROM executions e ${JOINS} WHERE e.id = ?`),
      ofConversation: db.prepare<[string], ExecutionSummary>(
        'SELECT id, status, provider, created_at AS createdAt FROM executions WHERE conversation_id = ? ORDER BY position',
      ),
      history: db.prepare<[string, string, number], { inputText: string; outputText: string | null }>(
        `SELECT json_extract(r.queued, '$.input.text') AS inputText, e.output_text AS outputText
         FROM executions e JOIN execution_requests r ON r.id = e.id
         WHERE e.conversation_id = ? AND e.status = 'completed' AND e.id != ? ORDER BY e.position DESC LIMIT ?`,
      ),
      inFlight: db.prepare<[], { id: string; owner: string | null }>(
        "SELECT id, owner FROM executions WHERE status IN ('queued', 'running', 'requires_action') ORDER BY position",
      ),
    };
  }

  byId(id: string): ExecutionRow | undefined {
    const row = this.statements.byId.get(id);
    return row && toRow(row);
  }

  ofConversation(conversationId: string): ExecutionSummary[] {
    return this.statements.ofConversation.all(conversationId);
  }

  /** The latest `limit` completed executions of the conversation (other than `exceptId`), oldest first. */
  history(conversationId: string, exceptId: string, limit: number): { inputText: string; outputText: string | null }[] {
    return this.statements.history.all(conversationId, exceptId, limit).reverse();
  }

  /** Every execution not yet ended, with the instance that owns it. */
  inFlight(): { id: string; owner: string | null }[] {
    return this.statements.inFlight.all();
  }

  /**
   * Newest first, one page of at most `filters.limit` rows; the SQL is built from the filters given
   * so each uses its index. The rows are read one at a time and the page ends early, `truncated`,
   * before the one whose stored state would take it past `maxBytes` (it keeps at least one):
   * a state holds the input, the config and the output text, up to ~1 MB each, and a page of 100
   * such executions was 75 MB of JSON parsed and written on the event loop.
   */
  search(filters: SearchFilters, maxBytes = Infinity): { rows: ExecutionRow[]; truncated: boolean } {
    const where = ['e.tenant_id = @tenantId'];
    if (filters.conversationId !== undefined) where.push('e.conversation_id = @conversationId');
    if (filters.status !== undefined) where.push('e.status = @status');
    if (filters.provider !== undefined) where.push('e.provider = @provider');
    if (filters.errorCode !== undefined) where.push('e.error_code = @errorCode');
    if (filters.createdAfter !== undefined) where.push('e.created_at > @createdAfter');
    if (filters.createdBefore !== undefined) where.push('e.created_at < @createdBefore');
    if (filters.beforePosition !== undefined) where.push('e.position < @beforePosition');
    // The joins are primary-key lookups per row of the page, after the executions index picked it.
    const sql = `SELECT ${COLUMNS} FROM executions e ${JOINS}
                 WHERE ${where.join(' AND ')} ORDER BY e.position DESC LIMIT @limit`;
    // At most 2^7 shapes of filter: each prepared once.
    let statement = this.searches.get(sql);
    if (!statement) this.searches.set(sql, (statement = this.db.prepare(sql)));
    const rows: ExecutionRow[] = [];
    let bytes = 0;
    for (const row of statement.iterate(filters) as IterableIterator<StoredExecutionRow>) {
      bytes += Buffer.byteLength(row.state) + Buffer.byteLength(row.queued);
      if (rows.length > 0 && bytes > maxBytes) return { rows, truncated: true };
      rows.push(toRow(row));
    }
    return { rows, truncated: false };
  }
}

type StoredExecutionRow = { tenant_id: string; state: string; queued: string; last_sequence: number; position: number };

/** Streamed output moves only execution_progress, so the state takes its last sequence from there. */
function toRow(row: StoredExecutionRow): ExecutionRow {
  return {
    tenantId: row.tenant_id,
    state: { ...withQueuedPart(JSON.parse(row.state), JSON.parse(row.queued)), lastSequence: row.last_sequence },
    lastSequence: row.last_sequence,
    position: row.position,
  };
}
