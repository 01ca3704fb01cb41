import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { api, tempSqlitePath } from '../support/app-harness';
import { built, killLeftovers, launch } from '../runtime/compiled-server';
import { describeCli, runCommand } from './cli-process';

/**
 * Rule 5 under a real crash: the compiled server is SIGKILLed while its projector applies a
 * steady stream of deltas. Each projection's checkpoint must then cover exactly the rows it
 * holds (checked directly against the log, and by projections:verify), and a restart brings
 * every read model current.
 */
const describeServer = built ? describeCli : describe.skip;
const RUNS = 8;
const STEPS = 1500;

interface Files {
  checkpoints: Record<string, number>;
  head: number;
  /** executions progress rows: id → last_sequence */
  rows: Map<string, number>;
  /** Per execution, how many of its events lie at or below the executions checkpoint. */
  eventsUpTo: (position: number) => Map<string, number>;
}

/** Reads what the dead (or stopped) server left in both files. */
function readFiles(sqlitePath: string): Files {
  const readModels = new Database(sqlitePath.replace(/\.db$/, '.read-models.db'));
  const events = new Database(sqlitePath);
  try {
    const checkpoints = Object.fromEntries(
      (readModels.prepare('SELECT projection, position FROM checkpoints').all() as { projection: string; position: number }[]).map((r) => [
        r.projection,
        r.position,
      ]),
    );
    const rows = new Map(
      (readModels.prepare('SELECT id, last_sequence FROM execution_progress').all() as { id: string; last_sequence: number }[]).map((r) => [
        r.id,
        r.last_sequence,
      ]),
    );
    const head = events.prepare('SELECT max(position) FROM events').pluck().get() as number;
    const counts = events.prepare("SELECT substr(stream_id, 11) AS id, position FROM events WHERE stream_id LIKE 'execution-%' ORDER BY position").all() as {
      id: string;
      position: number;
    }[];
    const eventsUpTo = (position: number) => {
      const byExecution = new Map<string, number>();
      for (const event of counts) if (event.position <= position) byExecution.set(event.id, (byExecution.get(event.id) ?? 0) + 1);
      return byExecution;
    };
    return { checkpoints, head, rows, eventsUpTo };
  } finally {
    readModels.close();
    events.close();
  }
}

describeServer('crash consistency of the projections (compiled server, SIGKILL)', () => {
  const sqlitePath = tempSqlitePath();
  afterEach(killLeftovers);
  afterAll(() => rmSync(dirname(sqlitePath), { recursive: true, force: true }));

  it('after SIGKILL mid-projection each checkpoint covers exactly its rows, verify finds no drift, and a restart catches up', async () => {
    const first = await launch({ SQLITE_PATH: sqlitePath });
    const conversationId = (await api(first.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    // ~1 delta per ms per run: the projector is busy applying when the kill lands.
    const script = Array.from({ length: STEPS }, (_, i) => [
      { type: 'text', text: `d${i} ` },
      { type: 'delay', ms: 1 },
    ]).flat();
    const ids: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const res = await api(first.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'go' }, config: { script } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    for (;;) {
      const latest = await api(first.baseUrl, 'GET', `/v1/executions/${ids[RUNS - 1]}`);
      if (latest.body.lastSequence >= 300) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const crashed = readFiles(sqlitePath);
    const positions = Object.values(crashed.checkpoints);
    expect(Object.keys(crashed.checkpoints).sort()).toEqual(['actions', 'artifacts', 'conversations', 'executions', 'usage']);
    for (const position of positions) expect(position).toBeLessThanOrEqual(crashed.head);
    // Each execution row holds exactly its events up to the checkpoint: none skipped, none beyond.
    const expected = crashed.eventsUpTo(crashed.checkpoints.executions);
    expect(new Map([...crashed.rows].sort())).toEqual(new Map([...expected].sort()));
    // The runs were mid-way: neither finished nor empty.
    expect([...crashed.rows.values()].some((n) => n > 10 && n < 2 * STEPS)).toBe(true);

    const verified = await runCommand('verify', [], { SQLITE_PATH: sqlitePath });
    expect(verified.stdout).toMatch(/no drift\n$/);
    expect(verified.code).toBe(0);

    const second = await launch({ SQLITE_PATH: sqlitePath });
    for (const id of ids) {
      let execution;
      do {
        execution = (await api(second.baseUrl, 'GET', `/v1/executions/${id}`)).body;
      } while (!['completed', 'failed', 'cancelled'].includes(execution.status));
      expect(execution.error?.code ?? null).toBe(execution.status === 'failed' ? 'RUNTIME_INTERRUPTED' : null);
      const replay = (await api(second.baseUrl, 'GET', `/v1/executions/${id}/events?limit=1`)).body;
      expect(execution.lastSequence).toBe(replay.lastSequence);
    }
    const listed = (await api(second.baseUrl, 'GET', `/v1/conversations/${conversationId}`)).body.executions;
    expect(listed.map((e: { id: string }) => e.id)).toEqual(ids);
    const runtime = (await api(second.baseUrl, 'GET', '/v1/runtime')).body;
    expect(runtime.projections.map((p: { lag: number }) => p.lag)).toEqual([0, 0, 0, 0, 0]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });

    const restarted = readFiles(sqlitePath);
    expect(Object.values(restarted.checkpoints)).toEqual(Object.values(restarted.checkpoints).map(() => restarted.head));
    expect(new Map([...restarted.rows].sort())).toEqual(new Map([...restarted.eventsUpTo(restarted.head)].sort()));
    expect((await runCommand('verify', [], { SQLITE_PATH: sqlitePath })).code).toBe(0);
  }, 90_000);
});
