import type Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lockCompanionFile, openShared } from '../common/owned-sqlite-file';

export const READ_MODEL_DB = Symbol('READ_MODEL_DB');

const lockedError = (file: string) => new Error(`the read model file ${file} is in use by another process; only one Runledger process may own it`);

/** The read-model file's lock for this process, taken before any connection opens it. */
export function lockReadModelFile(path: string): { file: string; lock: Database.Database } {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  return { file, lock: lockCompanionFile(file, lockedError) };
}

/**
 * A connection to the read models' own SQLite file, apart from the events: it is disposable
 * (delete it and every projection rebuilds from the log), so it trades `synchronous=FULL` for
 * NORMAL — each projection writes its rows and its checkpoint in one transaction, so a lost tail is
 * simply replayed. WAL, so the event loop's queries read while the projector thread writes; the
 * caller holds the lock (`lockReadModelFile`).
 */
export function connectReadModelFile(file: string): Database.Database {
  const db = openShared(file, lockedError);
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * The file locked and opened on one connection that both writes and reads: the CLI's commands,
 * the specs, and the server with `READ_MODEL_WRITER=inline`.
 */
export function openReadModelDatabase(path: string): { db: Database.Database; close(): void } {
  const { file, lock } = lockReadModelFile(path);
  try {
    const db = connectReadModelFile(file);
    return {
      db,
      close() {
        db.close();
        lock.close();
      },
    };
  } catch (error) {
    lock.close();
    throw error;
  }
}
