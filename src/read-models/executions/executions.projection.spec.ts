import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { history, readModelFile } from '../../../test/support/projection-history';
import { ProjectionCatalog } from '../projection-catalog';
import { executionsProjection } from './executions.projection';
import { ExecutionsReadModel } from './executions.read-model';
import { fold } from '../../executions/domain/execution-state';
import { toRecorded } from '../../executions/execution-stream';

describe('the executions projection', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = readModelFile();
  });
  afterEach(() => db.close());

  it('the execution row holds the resource and the usage, its progress the last sequence', () => {
    const apply = executionsProjection.bind(db);
    db.transaction(() => apply(history()))();
    const row = db.prepare('SELECT * FROM executions').get() as Record<string, any>;
    expect(row).toMatchObject({ id: 'x1', tenant_id: 't', status: 'completed', output_text: 'hello' });
    expect(db.prepare('SELECT * FROM execution_progress').all()).toEqual([{ id: 'x1', last_sequence: 10 }]);
    expect(JSON.parse(row.usage)).toEqual({ inputTokens: 1, outputTokens: 2 });
    expect(JSON.parse(row.state).artifactCount).toBe(1);
  });

  it("run.queued's part of the state (input, config) is stored once as its event stored it; a read gives back the domain's whole fold", () => {
    const apply = executionsProjection.bind(db);
    const events = history();
    const config = { script: [{ type: 'text', text: 'x' }], nested: { deep: [1, 2] } };
    events[1] = { ...events[1], data: { ...events[1].data, config, input: { text: 'a long input' } } };
    // One event per batch: every later change reloads the row and must keep the whole state.
    for (const event of events) db.transaction(() => apply([event]))();
    const stored = db.prepare('SELECT queued FROM execution_requests').pluck().all() as string[];
    expect(stored.map((text) => JSON.parse(text))).toEqual([events[1].data]);
    const rest = JSON.parse(db.prepare('SELECT state FROM executions').pluck().get() as string);
    expect(rest).not.toHaveProperty('config');
    expect(rest).not.toHaveProperty('input');
    const folded = fold(events.filter((e) => e.streamId === 'execution-x1').map(toRecorded), 'x1');
    const read = new ExecutionsReadModel(db);
    expect(read.byId('x1')!.state).toEqual(folded);
    expect(Object.keys(read.byId('x1')!.state)).toEqual(Object.keys(folded!));
    expect(read.search({ tenantId: 't', limit: 5 }).rows[0].state).toEqual(folded);
    expect(read.history('c1', 'other', 5)).toEqual([{ inputText: 'a long input', outputText: 'hello' }]);
  });

  it('a batch of deltas alone moves only the progress row, forward only, and reads take their last sequence from it', () => {
    const apply = executionsProjection.bind(db);
    const events = history();
    const wide = () => db.prepare('SELECT * FROM executions').all();
    db.transaction(() => apply(events.slice(0, 3)))();
    const started = wide();
    db.transaction(() => apply(events.slice(3, 4)))();
    expect(wide()).toEqual(started);
    expect(db.prepare('SELECT last_sequence FROM execution_progress').pluck().get()).toBe(3);
    // The same deltas again, or an older batch, leave it where it is.
    db.transaction(() => apply(events.slice(3, 4)))();
    db.transaction(() => apply(events.slice(2, 3)))();
    const reads = new ExecutionsReadModel(db);
    expect(reads.byId('x1')).toMatchObject({ lastSequence: 3, state: { status: 'running', lastSequence: 3 } });
    expect(reads.search({ tenantId: 't', limit: 10 }).rows.map((r) => r.lastSequence)).toEqual([3]);
    db.transaction(() => apply(events.slice(4)))();
    expect(reads.byId('x1')).toMatchObject({ lastSequence: 10, state: { status: 'completed', lastSequence: 10 } });
  });

  it('a read model of executions version 3 (progress on the wide row) is dropped and rebuilt at start', () => {
    const old = new Database(join(mkdtempSync(join(tmpdir(), 'runledger-projections-')), 'old.db'));
    try {
      old.exec(`CREATE TABLE executions (id TEXT PRIMARY KEY, text_so_far TEXT NOT NULL, last_sequence INTEGER NOT NULL);
                INSERT INTO executions VALUES ('x1', 'he', 3);
                CREATE TABLE checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL);
                CREATE TABLE projection_versions (projection TEXT PRIMARY KEY, version INTEGER NOT NULL);
                INSERT INTO checkpoints VALUES ('executions', 4);
                INSERT INTO projection_versions VALUES ('executions', 3)`);
      const catalog = new ProjectionCatalog(old);
      expect(catalog.prepare([executionsProjection])).toEqual(['executions']);
      expect(catalog.checkpoint('executions')).toBe(0);
      const columns = old.prepare('SELECT name FROM pragma_table_info(?)').pluck();
      expect(columns.all('executions')).not.toContain('text_so_far');
      expect(columns.all('execution_progress')).toEqual(['id', 'last_sequence']);
      expect(old.prepare('SELECT count(*) FROM executions').pluck().get()).toBe(0);
    } finally {
      old.close();
    }
  });
});
