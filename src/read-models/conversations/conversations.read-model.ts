import type Database from 'better-sqlite3';

export interface ConversationRow {
  id: string;
  tenantId: string;
  title: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export class ConversationsReadModel {
  private readonly byIdStatement;

  constructor(db: Database.Database) {
    this.byIdStatement = db.prepare<[string], { id: string; tenant_id: string; title: string | null; metadata: string; created_at: string }>(
      'SELECT id, tenant_id, title, metadata, created_at FROM conversations WHERE id = ?',
    );
  }

  byId(id: string): ConversationRow | undefined {
    const row = this.byIdStatement.get(id);
    return row && { id: row.id, tenantId: row.tenant_id, title: row.title, metadata: JSON.parse(row.metadata), createdAt: row.created_at };
  }
}
