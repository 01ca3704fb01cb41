import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const READ_MODEL_DB = Symbol('READ_MODEL_DB');

/**
 * The read models' own SQLite file, apart from the events: it is disposable (delete it and every
 * projection rebuilds from the log), so it trades `synchronous=FULL` for NORMAL — each projection
 * writes its rows and its checkpoint in one transaction, so a lost tail is simply replayed.
 * Locked to this process like the event store file.
 */
export function openReadModelDatabase(path: string): Database.Database {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 1000 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL)');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new Error(`the read model file ${file} is in use by another process; only one Runledger process may own it`);
    }
    throw error;
  }
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
