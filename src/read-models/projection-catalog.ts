import type Database from 'better-sqlite3';
import { Projection } from './projection';

/**
 * What the read-model database holds for each projection: its version and checkpoint. A
 * projection whose stored version differs from its code is dropped and starts again from 0.
 */
export class ProjectionCatalog {
  private readonly readCheckpoint: Database.Statement<[string], { position: number }>;
  /** Run inside every batch's transaction: prepared once, not per batch. */
  private readonly writeCheckpoint: Database.Statement<[string, number]>;

  constructor(private readonly db: Database.Database) {
    // The execution index of earlier versions; the executions projection replaced it.
    db.exec('DROP TABLE IF EXISTS execution_index; DROP TABLE IF EXISTS execution_index_version');
    db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
             CREATE TABLE IF NOT EXISTS projection_versions (projection TEXT PRIMARY KEY, version INTEGER NOT NULL)`);
    this.readCheckpoint = db.prepare('SELECT position FROM checkpoints WHERE projection = ?');
    this.writeCheckpoint = db.prepare(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
    );
  }

  /** Creates missing or outdated projections; answers the names that (re)start from the beginning. */
  prepare(projections: readonly Projection[], force: readonly string[] = []): string[] {
    const rebuilt: string[] = [];
    const versionOf = this.db.prepare('SELECT version FROM projection_versions WHERE projection = ?');
    for (const projection of projections) {
      const stored = (versionOf.get(projection.name) as { version: number } | undefined)?.version;
      if (stored === projection.version && !force.includes(projection.name)) continue;
      this.reset(projection);
      rebuilt.push(projection.name);
    }
    return rebuilt;
  }

  /** Drops the projection's rows and checkpoint and creates its tables afresh, in one transaction. */
  reset(projection: Projection): void {
    this.db.transaction(() => {
      for (const table of projection.tables) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      projection.create(this.db);
      this.db.prepare('DELETE FROM checkpoints WHERE projection = ?').run(projection.name);
      this.db
        .prepare('INSERT INTO projection_versions (projection, version) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET version = excluded.version')
        .run(projection.name, projection.version);
    })();
  }

  checkpoint(name: string): number {
    return this.readCheckpoint.get(name)?.position ?? 0;
  }

  /** Call inside the transaction that writes the rows the position covers. */
  setCheckpoint(name: string, position: number): void {
    this.writeCheckpoint.run(name, position);
  }
}
