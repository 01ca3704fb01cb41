import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, createConversation, waitForExecution } from '../support/app-harness';
import { createDatabase } from '../support/postgres-cluster';
import { built, exitWithin, killLeftovers, launch, ServerProcess } from '../runtime/compiled-server';

/**
 * docs/api.md#concurrency across three real processes on one PostgreSQL: the turns stream's
 * expected revision decides racing starts whichever instance takes them, and a queued execution
 * starts on its own instance when the one before it ends on another.
 */
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = !built ? 'dist/ is not built (npm test builds it)' : (process.env.RUNLEDGER_PG_SKIP_REASON ?? 'no PostgreSQL');
const NAMES = ['A', 'B', 'C'];

if (!adminUrl || !built) {
  process.stderr.write(`Multi-instance concurrency suite skipped: ${skipReason}\n`);
  describe.skip('concurrency across three instances', () => {
    it('races starts', () => undefined);
  });
} else {
  describe('concurrency across three instances on one PostgreSQL', () => {
    let dir: string;
    const instances: ServerProcess[] = [];
    const url = (i: number) => instances[i % instances.length].baseUrl;
    const start = (i: number, body: Record<string, unknown>) =>
      api(url(i), 'POST', '/v1/executions', { provider: 'scripted', input: { text: `turn ${i}` }, ...body });

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'runledger-multi-conc-'));
      const databaseUrl = await createDatabase(adminUrl, 'multiconc');
      for (const name of NAMES) {
        instances.push(
          await launch({
            EVENT_STORE: 'postgres',
            DATABASE_URL: databaseUrl,
            READ_MODEL_PATH: join(dir, `${name}.read-models.db`),
            LOG_LEVEL: 'info',
            HEARTBEAT_INTERVAL_MS: '200',
            HEARTBEAT_LAPSE_MS: '1200',
          }),
        );
      }
    }, 60_000);

    afterAll(async () => {
      for (const server of instances) server.child.kill('SIGTERM');
      await Promise.all(instances.map((server) => exitWithin(server, 10_000)));
      killLeftovers();
      rmSync(dir, { recursive: true, force: true });
    });

    it('21 reject starts racing through three instances into an idle conversation: one 201', async () => {
      const conversationId = await createConversation(url(0));
      const script = [{ type: 'action', kind: 'approval', prompt: 'go?' }];
      const answers = await Promise.all(Array.from({ length: 21 }, (_, i) => start(i, { conversationId, concurrency: 'reject', config: { script } })));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(20).fill(409)]);
      for (const refused of answers.filter((r) => r.status === 409)) expect(refused.body.error.code).toBe('INVALID_STATE');
      const id = answers.find((r) => r.status === 201)!.body.id;
      expect((await api(url(1), 'POST', `/v1/executions/${id}:cancel`, {})).body.status).toBe('cancelled');
    }, 30_000);

    it('21 enqueue starts through three instances run one at a time, in creation order', async () => {
      const conversationId = await createConversation(url(0), { concurrency: 'enqueue' });
      const script = [
        { type: 'text', text: 'a' },
        { type: 'delay', ms: 10 },
        { type: 'text', text: 'b' },
      ];
      const answers = await Promise.all(Array.from({ length: 21 }, (_, i) => start(i, { conversationId, config: { script } })));
      expect(answers.map((r) => r.status)).toEqual(Array(21).fill(201));
      const ids = answers.map((r) => r.body.id as string);
      for (const id of ids) expect((await waitForExecution(url(0), id, undefined, 30_000)).status).toBe('completed');
      // Creation order is the conversation's list (by run.queued), as any instance shows it once caught up.
      const feed = (await api(url(2), 'GET', '/v1/events?limit=1000')).body.events;
      const position = (id: string, type: string) => feed.find((e: any) => e.executionId === id && e.type === type)?.position;
      const created = ids.sort((a, b) => position(a, 'run.queued') - position(b, 'run.queued'));
      for (let i = 1; i < created.length; i++) expect(position(created[i], 'run.started')).toBeGreaterThan(position(created[i - 1], 'run.completed'));
    }, 60_000);
  });
}
