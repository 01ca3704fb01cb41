import type Database from 'better-sqlite3';

/**
 * Bump when the table changes: a file with another version drops the table and its checkpoint,
 * and the index is rebuilt from the events (read models are disposable, rule 5).
 */
export const EXECUTION_INDEX_VERSION = 1;
export const EXECUTION_INDEX = 'execution-index';

const DDL = `
  CREATE TABLE execution_index (
    id              TEXT PRIMARY KEY,
    tenant_id       TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    provider        TEXT NOT NULL,
    status          TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    input_text      TEXT NOT NULL,
    output_text     TEXT,
    pending_actions INTEGER NOT NULL DEFAULT 0,
    position        INTEGER NOT NULL
  );
  CREATE INDEX execution_index_by_conversation ON execution_index (conversation_id, position);
  CREATE INDEX execution_index_in_flight ON execution_index (status)
    WHERE status IN ('queued', 'running', 'requires_action');
  CREATE TABLE execution_index_version (version INTEGER NOT NULL);
`;

/** Creates the table, or recreates it (dropping its checkpoint) when its version differs. */
export function prepareExecutionIndex(db: Database.Database, { force = false } = {}): 'kept' | 'created' {
  const hasVersion = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'execution_index_version'")
    .get();
  const version = hasVersion
    ? (db.prepare('SELECT version FROM execution_index_version').get() as { version: number } | undefined)?.version
    : undefined;
  if (version === EXECUTION_INDEX_VERSION && !force) return 'kept';
  db.transaction(() => {
    db.exec('DROP TABLE IF EXISTS execution_index; DROP TABLE IF EXISTS execution_index_version;');
    db.prepare('DELETE FROM checkpoints WHERE projection = ?').run(EXECUTION_INDEX);
    db.exec(DDL);
    db.prepare('INSERT INTO execution_index_version (version) VALUES (?)').run(EXECUTION_INDEX_VERSION);
  })();
  return 'created';
}
