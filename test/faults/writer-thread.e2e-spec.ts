import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { createConversation, onPostgres, readSse, RunningApp, startApp, startExecution, waitForExecution } from '../support/app-harness';
import { replay } from '../support/execution-helpers';
import { countRefusals } from '../support/store-faults';

/**
 * The writer thread dying under streaming executions, through real HTTP — SQLite's in the first
 * pass of `npm test`, PostgreSQL's in the second: the appends it
 * held are refused as of unknown outcome, the runner retries them with the same event ids, and
 * every run ends by the usual rules with each delta stored once and no hole
 * (docs/design.md#the-sqlite-writer-thread, docs/design.md#the-postgresql-writer-thread).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 1,500 numbered deltas with a short pause every 20, so the runs are mid-stream when the thread dies. */
const script = (label: string) =>
  Array.from({ length: 1500 }, (_, i) => [{ type: 'text', text: `${label}.${i} ` }, ...(i % 20 === 19 ? [{ type: 'delay', ms: 2 }] : [])]).flat();
const textsOf = (steps: Record<string, unknown>[]) => steps.filter((s) => s.type === 'text').map((s) => s.text as string);
const deltas = (events: any[]) => events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta);

describe(`the ${onPostgres ? 'PostgreSQL' : 'SQLite'} writer thread dying while executions stream`, () => {
  let app: RunningApp;
  afterEach(() => app?.close());

  it('every run completes with each delta once and no hole; SSE clients see exactly the stored events', async () => {
    app = await startApp({ storeRetryMs: 30_000, logLevel: 'silent' });
    const gateway = app.app.get<EventStore>(EVENT_STORE) as EventStoreGateway;
    const store = gateway.inner as EventStore & { crashWriterAfterNextCommit(): void };
    const conversationId = await createConversation(app.baseUrl);
    const scripts = Array.from({ length: 4 }, (_, k) => script(`r${k}`));
    const ids: string[] = [];
    for (const steps of scripts) {
      const res = await startExecution(app.baseUrl, { conversationId, config: { script: steps } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const streams = ids.map((id) => readSse(app.baseUrl, `/v1/executions/${id}/events`));
    await waitForExecution(app.baseUrl, ids[0], (e) => e.lastSequence > 100);

    const refusals = countRefusals(gateway);
    // Three deaths, each right after a commit and before its acknowledgement: the worst moment.
    for (let k = 0; k < 3; k++) {
      store.crashWriterAfterNextCommit();
      await sleep(150);
    }

    for (const [k, id] of ids.entries()) {
      const execution = await waitForExecution(app.baseUrl, id, undefined, 60_000);
      // Each death refused what the thread held: the runs really had appends to retry.
      if (k === 0) expect(refusals.count).toBeGreaterThanOrEqual(3);
      expect(execution.status).toBe('completed');
      const events = await replay(app.baseUrl, id);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(deltas(events)).toEqual(textsOf(scripts[k]));
      const seen = await streams[k];
      expect(seen.messages.filter((m) => m.event !== undefined).map((m) => JSON.parse(m.data!))).toEqual(events);
    }
  }, 120_000);
});
