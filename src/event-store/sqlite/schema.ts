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
