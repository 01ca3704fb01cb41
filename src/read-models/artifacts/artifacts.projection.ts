import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import { executionIdOf, isExecutionStream } from '../../executions/execution-stream';
import { Projection } from '../projection';

/** Every artifact descriptor (docs/api.md#artifacts) as a row, in creation order per execution. */
export const artifactsProjection: Projection = {
  name: 'artifacts',
  version: 1,
  tables: ['artifacts'],
  create: (db) =>
    db.exec(`CREATE TABLE artifacts (
      execution_id TEXT NOT NULL,
      sequence     INTEGER NOT NULL,
      descriptor   TEXT NOT NULL,
      PRIMARY KEY (execution_id, sequence)
    )`),
  bind(db: Database.Database) {
    const insert = db.prepare('INSERT OR IGNORE INTO artifacts (execution_id, sequence, descriptor) VALUES (?, ?, ?)');
    return (events: StoredEvent[]) => {
      for (const event of events) {
        if (event.type !== 'artifact.created' || !isExecutionStream(event.streamId)) continue;
        insert.run(executionIdOf(event.streamId), event.revision + 1, JSON.stringify((event.data as { artifact: unknown }).artifact));
      }
    };
  },
};
