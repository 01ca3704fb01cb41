import Database from 'better-sqlite3';
import { get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyProjections } from '../../src/cli/verify';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { PROJECTIONS } from '../../src/read-models/projections';
import { Projector } from '../../src/read-models/projector';
import { ProjectorClient } from '../../src/read-models/projector-client';
import { openReadModelDatabase } from '../../src/read-models/read-model-database';
import { createConversation, describeOnSqlite, RunningApp, startApp, startExecution, waitForExecution } from '../support/app-harness';

/**
 * The projector thread dying mid-batch under streaming executions, through real HTTP: queries
 * that need what it had not applied answer 503 (never 500, never stale), it restarts from its
 * checkpoints, and afterwards every read model equals a rebuild from the log
 * (docs/design.md#the-projector-thread).
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 600 deltas with a 1 ms pause every 5: the runs keep the projector busy while it dies. */
const script = (label: string) =>
  Array.from({ length: 600 }, (_, i) => [{ type: 'text', text: `${label}.${i} ` }, ...(i % 5 === 4 ? [{ type: 'delay', ms: 1 }] : [])]).flat();

/** GET through node:http, answering the status and the error code, if any. */
const nodeGet = (url: string) =>
  new Promise<{ status: number; code?: string }>((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, code: (JSON.parse(body) as { error?: { code: string } }).error?.code }));
    }).on('error', reject);
  });

const fetchGet = async (url: string) => {
  const res = await fetch(url);
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, code: body.error?.code };
};

describeOnSqlite('the projector thread dying while executions stream', () => {
  let app: RunningApp | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'runledger-projector-thread-'));
  afterEach(() => app?.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('queries answer 503 while it is down, it restarts from its checkpoints, and the read models show no drift', async () => {
    const sqlitePath = join(dir, 'runledger.db');
    const readModelPath = join(dir, 'read-models.db');
    app = await startApp({ sqlitePath, readModelPath, logLevel: 'silent' });
    const writer = app.app.get(Projector).writer;
    expect(writer).toBeInstanceOf(ProjectorClient);
    const conversationId = await createConversation(app.baseUrl);
    const ids: string[] = [];
    for (let k = 0; k < 4; k++) {
      const res = await startExecution(app.baseUrl, { conversationId, config: { script: script(`r${k}`) } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    await waitForExecution(app.baseUrl, ids[0], (e) => e.lastSequence > 50);

    // Queries race the deaths from both kinds of client; each answer is 200 or a 503 envelope.
    const url = `${app.baseUrl}/v1/conversations/${conversationId}`;
    const answers: { status: number; code?: string }[] = [];
    let polling = true;
    const poll = async (client: typeof nodeGet) => {
      while (polling) answers.push(await client(url));
    };
    const pollers = [poll(nodeGet), poll(fetchGet)];
    for (let k = 0; k < 3; k++) {
      (writer as ProjectorClient).crashAfterNextCommit();
      await sleep(200);
    }
    for (const id of ids) expect((await waitForExecution(app.baseUrl, id, undefined, 60_000)).status).toBe('completed');
    polling = false;
    await Promise.all(pollers);

    expect(answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.code === 'SERVICE_UNAVAILABLE'))).toEqual([]);
    expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    // Once restarted, the list is complete.
    let listed = await fetchGet(url);
    for (let tries = 0; listed.status === 503 && tries < 50; tries++) {
      await sleep(100);
      listed = await fetchGet(url);
    }
    expect(listed.status).toBe(200);
    await app.close();
    app = undefined;

    // No drift: each projection equals its rebuild from the log up to its checkpoint.
    const store = new EventStoreGateway(SqliteEventStore.open(sqlitePath));
    const live = openReadModelDatabase(readModelPath);
    const scratchPath = join(dir, 'scratch.db');
    const scratch = new Database(scratchPath);
    try {
      const head = await store.headPosition();
      const verdicts = await verifyProjections(store, live.db, { db: scratch, path: scratchPath }, PROJECTIONS);
      expect(verdicts.map(({ name, checkpoint, drift }) => ({ name, checkpoint, drift }))).toEqual(
        PROJECTIONS.map(({ name }) => ({ name, checkpoint: head, drift: [] })),
      );
    } finally {
      scratch.close();
      live.close();
      await store.close();
    }
  }, 120_000);
});
