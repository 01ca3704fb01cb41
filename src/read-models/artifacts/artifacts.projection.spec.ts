import type Database from 'better-sqlite3';
import { history, readModelFile } from '../../../test/support/projection-history';
import { ArtifactsReadModel } from './artifacts.read-model';
import { artifactsProjection } from './artifacts.projection';

describe('the artifacts projection', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = readModelFile();
  });
  afterEach(() => db.close());

  it("holds each artifact's descriptor as the event carried it, in creation order", () => {
    const apply = artifactsProjection.bind(db);
    const events = history();
    db.transaction(() => apply(events))();
    const created = events.filter((e) => e.type === 'artifact.created').map((e) => e.data.artifact);
    expect(new ArtifactsReadModel(db).of('x1')).toEqual(created);
    expect(new ArtifactsReadModel(db).of('elsewhere')).toEqual([]);
  });
});
