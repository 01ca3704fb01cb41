import type Database from 'better-sqlite3';
import { ArtifactDescriptor } from '../../executions/domain/execution-events';

/** An execution's artifact descriptors, in creation order, from the artifacts projection. */
export class ArtifactsReadModel {
  private readonly artifacts;

  constructor(db: Database.Database) {
    this.artifacts = db.prepare<[string], { descriptor: string }>('SELECT descriptor FROM artifacts WHERE execution_id = ? ORDER BY sequence');
  }

  of(executionId: string): ArtifactDescriptor[] {
    return this.artifacts.all(executionId).map((row) => JSON.parse(row.descriptor));
  }
}
