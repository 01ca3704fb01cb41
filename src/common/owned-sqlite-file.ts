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

/**
 * Locks `file` to this process through a companion `<file>.lock` SQLite file held in exclusive
 * locking mode, for a file that must stay open to several connections of this process (a worker
 * thread's and the event loop's), so that its own exclusive mode cannot be the lock. The OS drops
 * the lock when the process dies, so a crash never leaves a stale one. Every opener of such a file
 * takes it, whichever way it writes.
 */
export function lockCompanionFile(file: string, lockedError: (file: string) => Error): Database.Database {
  return openLocked(
    `${file}.lock`,
    () => lockedError(file),
    (lock) => {
      lock.pragma('locking_mode = EXCLUSIVE');
      lock.exec('BEGIN EXCLUSIVE; COMMIT;');
    },
  );
}

/**
 * The file opened in normal locking mode, so other connections of this process can share it (the
 * lock file keeps other processes out). A process of an older build holds the file itself in
 * exclusive mode: the write probe then fails as busy.
 */
export function openShared(file: string, lockedError: (file: string) => Error): Database.Database {
  return openLocked(file, lockedError, (db) => {
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE; COMMIT;');
  });
}
