import type Database from 'better-sqlite3';
import { openLocked } from '../../common/owned-sqlite-file';

/**
 * Locks the event store file to this process through a companion `<file>.lock` SQLite file held
 * in exclusive locking mode: the event store file itself must stay open to the writer thread's
 * and the readers' connections (docs/design.md#the-sqlite-writer-thread), so its own exclusive
 * mode cannot be the lock. The OS drops the lock when the process dies, so a crash never leaves
 * a stale one. Every opener of the event store takes it, whichever way it writes.
 */
export function lockEventStoreFile(file: string, lockedError: (file: string) => Error): Database.Database {
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
 * The file opened in normal locking mode, so the writer thread's connection can share it (the
 * lock file keeps other processes out). A process of an older build holds the file itself in
 * exclusive mode: the write probe then fails as busy.
 */
export function openShared(file: string, lockedError: (file: string) => Error): Database.Database {
  return openLocked(file, lockedError, (db) => {
    db.pragma('journal_mode = WAL');
    db.exec('BEGIN IMMEDIATE; COMMIT;');
  });
}
