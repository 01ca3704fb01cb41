import type Database from 'better-sqlite3';
import { dump, history, readModelFile } from '../../test/support/projection-history';
import { PROJECTIONS } from './projections';
import { withoutSupersededStreamed } from './streamed-events';

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

  it.each(PROJECTIONS.map((p) => [p.name, p] as const))(
    '%s: a batch without its superseded streamed events gives the same rows as the whole batch',
    (_, projection) => {
      const apply = projection.bind(db);
      const events = history();
      const batches = (split: number) => [events.slice(0, split), events.slice(split)];
      for (const split of [4, 5, 9, events.length]) {
        const rows = (compact: boolean) => {
          for (const table of projection.tables) db.exec(`DELETE FROM ${table}`);
          return batches(split).map((batch) => {
            db.transaction(() => apply(compact ? withoutSupersededStreamed(batch) : batch))();
            return dump(db, projection);
          });
        };
        expect(rows(true)).toEqual(rows(false));
      }
    },
  );
});
