import Database from 'better-sqlite3';

/**
 * Locks the event store file to this process through a companion `<file>.lock` SQLite file held
 * in exclusive locking mode: the event store file itself must stay open to the writer thread's
 * and the readers' connections (docs/design.md#the-sqlite-writer-thread), so its own exclusive
 * mode cannot be the lock. The OS drops the lock when the process dies, so a crash never leaves
 * a stale one. Every opener of the event store takes it, whichever way it writes.
 */
export function lockEventStoreFile(file: string, lockedError: (file: string) => Error): Database.Database {
  const lock = new Database(`${file}.lock`, { timeout: 1000 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw lockedError(file);
    throw error;
  }
  return lock;
}

/**
 * The file opened in normal locking mode, so the writer thread's connection can share it (the
 * lock file keeps other processes out). A process of an older build holds the file itself in
 * exclusive mode: the write probe then fails as busy.
 */
export function openShared(file: string, lockedError: (file: string) => Error): Database.Database {
  const db = new Database(file, { timeout: 1000 });
  try {
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE; COMMIT;');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw lockedError(file);
    throw error;
  }
  return db;
}
