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
  db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL)');
  return db;
}

/** Where a projection stands in the global log, kept beside its rows. */
export class Checkpoint {
  private readonly read: Database.Statement<[string], { position: number }>;
  private readonly write: Database.Statement<[string, number]>;

  constructor(
    db: Database.Database,
    readonly projection: string,
  ) {
    this.read = db.prepare('SELECT position FROM checkpoints WHERE projection = ?');
    this.write = db.prepare(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
    );
  }

  get position(): number {
    return this.read.get(this.projection)?.position ?? 0;
  }

  /** Call inside the transaction that writes the rows the position covers. */
  set position(position: number) {
    this.write.run(this.projection, position);
  }
}
