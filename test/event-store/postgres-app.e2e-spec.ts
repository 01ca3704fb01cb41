import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningApp, api, createConversation, readSse, startApp, startExecution, waitForExecution } from '../support/app-harness';
import { createDatabase } from '../support/postgres-cluster';

/** The application on EVENT_STORE=postgres: what it reports, and replay and SSE byte for byte. */
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = process.env.RUNLEDGER_PG_SKIP_REASON ?? 'test/global-setup.ts did not run';

if (!adminUrl) {
  process.stderr.write(`PostgreSQL app suite skipped: ${skipReason}\n`);
  describe.skip('the app on PostgreSQL', () => {
    it('runs against PostgreSQL', () => undefined);
  });
} else {
  describe('the app on PostgreSQL', () => {
    let app: RunningApp;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'runledger-pg-app-'));
      const databaseUrl = await createDatabase(adminUrl, 'app');
      app = await startApp({ env: { EVENT_STORE: 'postgres', DATABASE_URL: databaseUrl, READ_MODEL_PATH: join(dir, 'read-models.db') } });
    });

    afterAll(async () => {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reports eventStore postgres on GET /v1/runtime', async () => {
      const res = await api(app.baseUrl, 'GET', '/v1/runtime');
      expect(res.status).toBe(200);
      expect(res.body.eventStore).toBe('postgres');
    });

    it('streams a live execution over SSE byte-identical to its JSON replay', async () => {
      const conversationId = await createConversation(app.baseUrl);
      const script = [
        { type: 'text', text: 'a' },
        { type: 'delay', ms: 150 },
        { type: 'text', text: 'b "ü" \\ c' },
        { type: 'delay', ms: 150 },
        { type: 'text', text: 'd' },
      ];
      const id = (await startExecution(app.baseUrl, { conversationId, config: { script } })).body.id;
      const sse = await readSse(app.baseUrl, `/v1/executions/${id}/events`);
      await waitForExecution(app.baseUrl, id);
      const replay = await api(app.baseUrl, 'GET', `/v1/executions/${id}/events`);
      expect(replay.body.terminal).toBe(true);
      const message = (e: { sequence: number; type: string }) => `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
      expect(sse.raw).toBe(`retry: 1000\n\n${replay.body.events.map(message).join('')}`);
      const data = sse.messages.filter((m) => m.data !== undefined).map((m) => m.data);
      expect(replay.text).toBe(`{"events":[${data.join(',')}],"lastSequence":${data.length},"terminal":true}`);
      expect((await api(app.baseUrl, 'GET', `/v1/executions/${id}`)).body.status).toBe('completed');
    });
  });
}
