import type Database from 'better-sqlite3';
import { history, readModelFile } from '../../../test/support/projection-history';
import { fold } from '../../executions/domain/execution-state';
import { toRecorded } from '../../executions/execution-stream';
import { ActionsReadModel } from './actions.read-model';
import { actionsProjection } from './actions.projection';

describe('the actions projection', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = readModelFile();
  });
  afterEach(() => db.close());

  it('the open action is cancelled at the end', () => {
    const apply = actionsProjection.bind(db);
    db.transaction(() => apply(history()))();
    const actions = db.prepare('SELECT id, status FROM actions ORDER BY sequence').all();
    expect(actions).toEqual([
      { id: 'a1', status: 'resolved' },
      { id: 'a2', status: 'cancelled' },
    ]);
  });

  it('holds the actions as the domain folds them, whatever the batches', () => {
    const apply = actionsProjection.bind(db);
    const events = history();
    for (let i = 0; i < events.length; i += 2) db.transaction(() => apply(events.slice(i, i + 3)))();
    const state = fold(events.filter((e) => e.streamId === 'execution-x1').map(toRecorded), 'x1')!;
    expect(new ActionsReadModel(db).of('x1')).toEqual(state.actions.map((action) => ({ ...action, executionId: 'x1' })));
  });
});
