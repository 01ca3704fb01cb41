import type Database from 'better-sqlite3';
import { dump, history, readModelFile } from '../../test/support/projection-history';
import { PROJECTIONS } from './projections';

describe('projections', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = readModelFile();
  });
  afterEach(() => db.close());

  it.each(PROJECTIONS.map((p) => [p.name, p] as const))('%s: the same events applied twice, or in two batches, give the same rows', (_, projection) => {
    const apply = projection.bind(db);
    const events = history();
    db.transaction(() => apply(events))();
    const once = dump(db, projection);
    expect(once.length).toBeGreaterThan(0);
    db.transaction(() => apply(events))();
    expect(dump(db, projection)).toEqual(once);
    for (const table of projection.tables) db.exec(`DELETE FROM ${table}`);
    db.transaction(() => apply(events.slice(0, 5)))();
    db.transaction(() => apply(events.slice(3)))();
    expect(dump(db, projection)).toEqual(once);
  });
});
