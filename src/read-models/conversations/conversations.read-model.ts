import type Database from 'better-sqlite3';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';

export interface ConversationRow {
  id: string;
  tenantId: string;
  title: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Only when set (docs/api.md#concurrency). */
  concurrency?: ConcurrencyPolicy;
}

export class ConversationsReadModel {
  private readonly byIdStatement;

  constructor(db: Database.Database) {
    this.byIdStatement = db.prepare<
      [string],
      { id: string; tenant_id: string; title: string | null; metadata: string; created_at: string; concurrency: string | null }
    >('SELECT id, tenant_id, title, metadata, created_at, concurrency FROM conversations WHERE id = ?');
  }

  byId(id: string): ConversationRow | undefined {
    const row = this.byIdStatement.get(id);
    if (!row) return undefined;
    const concurrency = row.concurrency as ConcurrencyPolicy | null;
    return {
      id: row.id,
      tenantId: row.tenant_id,
      title: row.title,
      metadata: JSON.parse(row.metadata),
      createdAt: row.created_at,
      ...(concurrency !== null && { concurrency }),
    };
  }
}
