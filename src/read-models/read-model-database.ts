import type Database from 'better-sqlite3';
import { openOwnedSqliteFile } from '../common/owned-sqlite-file';

export const READ_MODEL_DB = Symbol('READ_MODEL_DB');

/**
 * The read models' own SQLite file, apart from the events: it is disposable (delete it and every
 * projection rebuilds from the log), so it trades `synchronous=FULL` for NORMAL — each projection
 * writes its rows and its checkpoint in one transaction, so a lost tail is simply replayed.
 * Locked to this process like the event store file.
 */
export function openReadModelDatabase(path: string): Database.Database {
  const db = openOwnedSqliteFile(
    path,
    'NORMAL',
    (file) => new Error(`the read model file ${file} is in use by another process; only one Runledger process may own it`),
  );
  // The execution index of earlier versions; the executions projection replaced it.
  db.exec('DROP TABLE IF EXISTS execution_index; DROP TABLE IF EXISTS execution_index_version');
  return db;
}
