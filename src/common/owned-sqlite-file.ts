import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Opens a SQLite file in WAL mode, creating its folder, and takes its lock for this process.
 * Exclusive locking mode holds the lock from the first write until the connection closes; the
 * OS drops it when the process dies, so a crash never leaves a stale lock. A file another
 * process holds fails with `lockedError(file)`.
 */
export function openOwnedSqliteFile(path: string, synchronous: 'FULL' | 'NORMAL', lockedError: (file: string) => Error): Database.Database {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  return openLocked(file, lockedError, (db) => {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
  });
}

/**
 * Opens `file` and runs `take` on it, which takes whatever lock the caller needs; a lock another
 * process holds (SQLITE_BUSY) fails as `lockedError(file)`, and the connection is closed on any failure.
 */
export function openLocked(file: string, lockedError: (file: string) => Error, take: (db: Database.Database) => void): Database.Database {
  const db = new Database(file, { timeout: 1000 });
  try {
    take(db);
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw lockedError(file);
    throw error;
  }
  return db;
}
