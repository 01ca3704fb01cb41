import type Database from 'better-sqlite3';

/**
 * Versioned schema migrations, tracked in `PRAGMA user_version`. Append new steps; never edit a
 * step that has shipped, because existing files have already run it.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE events (
     position    INTEGER PRIMARY KEY AUTOINCREMENT,
     stream_id   TEXT    NOT NULL,
     revision    INTEGER NOT NULL,
     type        TEXT    NOT NULL,
     data        TEXT    NOT NULL,
     metadata    TEXT    NOT NULL,
     occurred_at TEXT    NOT NULL,
     UNIQUE (stream_id, revision)
   )`,
  // Stable event ids (retries after an unknown outcome recognise their own events), and the
  // tenant and schema version as columns so readers can filter without parsing metadata JSON.
  // Rows written before ids existed get a random UUIDv4-shaped id once.
  `ALTER TABLE events ADD COLUMN event_id TEXT;
   ALTER TABLE events ADD COLUMN tenant_id TEXT;
   ALTER TABLE events ADD COLUMN schema_version INTEGER;
   UPDATE events SET
     tenant_id = json_extract(metadata, '$.tenantId'),
     schema_version = json_extract(metadata, '$.schemaVersion'),
     event_id = lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' ||
       substr('89ab', 1 + (random() & 3), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)));
   CREATE INDEX events_by_tenant ON events (tenant_id, position);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(`event store file has schema version ${current}, newer than this build understands (${SCHEMA_VERSION})`);
  }
  db.transaction(() => {
    for (let version = current; version < SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
    }
  })();
}
