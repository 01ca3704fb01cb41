import type Database from 'better-sqlite3';
import { history, readModelFile } from '../../../test/support/projection-history';
import { ConversationsReadModel } from './conversations.read-model';
import { conversationsProjection } from './conversations.projection';

describe('the conversations projection', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = readModelFile();
  });
  afterEach(() => db.close());

  it('holds each conversation with its tenant, title, metadata and creation time', () => {
    const apply = conversationsProjection.bind(db);
    const events = history();
    db.transaction(() => apply(events))();
    expect(new ConversationsReadModel(db).byId('c1')).toEqual({ id: 'c1', tenantId: 't', title: 't', metadata: { a: 1 }, createdAt: events[0].occurredAt });
    expect(new ConversationsReadModel(db).byId('x1')).toBeUndefined();
  });
});
