import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { Projection } from '../projection';

const PREFIX = 'conversation-';

/** Every conversation (docs/api.md#conversations); its executions are listed from the executions read model. */
export const conversationsProjection: Projection = {
  name: 'conversations',
  // 2: the conversation's default concurrency (docs/api.md#concurrency).
  version: 2,
  tables: ['conversations'],
  create: (db) =>
    db.exec(`CREATE TABLE conversations (
      id         TEXT PRIMARY KEY,
      tenant_id  TEXT NOT NULL,
      title      TEXT,
      metadata   TEXT NOT NULL,
      created_at TEXT NOT NULL,
      concurrency TEXT
    )`),
  bind(db: Database.Database) {
    const insert = db.prepare('INSERT OR IGNORE INTO conversations (id, tenant_id, title, metadata, created_at, concurrency) VALUES (?, ?, ?, ?, ?, ?)');
    return (events: StoredEvent[]) => {
      for (const event of events) {
        if (event.type !== 'conversation.created' || !event.streamId.startsWith(PREFIX)) continue;
        const data = event.data as { title: string | null; metadata: Record<string, unknown>; concurrency?: string };
        const id = event.streamId.slice(PREFIX.length);
        insert.run(id, event.metadata.tenantId, data.title, JSON.stringify(data.metadata), event.occurredAt, data.concurrency ?? null);
      }
    };
  },
};
