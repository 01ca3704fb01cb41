import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, createConversation } from '../support/app-harness';
import { createDatabase } from '../support/postgres-cluster';
import { built, exitWithin, killLeftovers, launch, ServerProcess } from '../runtime/compiled-server';
import { Receiver } from './receiver';

/**
 * docs/webhooks.md#several-instances: three processes of the compiled server on one PostgreSQL
 * database. Exactly one delivers each endpoint at a time; a killed holder's endpoints move on.
 */
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = !built ? 'dist/ is not built (npm test builds it)' : (process.env.RUNLEDGER_PG_SKIP_REASON ?? 'no PostgreSQL');
const ENV = {
  HEARTBEAT_INTERVAL_MS: '200',
  HEARTBEAT_LAPSE_MS: '1200',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE_MS: Array(10).fill('100').join(','),
};
const EVENTS = ['run.started', 'output.text.delta', 'run.completed'];

if (!adminUrl || !built) {
  process.stderr.write(`Webhook multi-instance suite skipped: ${skipReason}\n`);
  describe.skip('webhooks on three instances', () => it('delivers', () => undefined));
} else {
  describe('webhooks on three instances of one PostgreSQL', () => {
    let dir: string;
    let databaseUrl: string;
    const instances: Record<string, ServerProcess> = {};
    const receivers: Receiver[] = [];
    const start = async (name: string) =>
      (instances[name] = await launch({ EVENT_STORE: 'postgres', DATABASE_URL: databaseUrl, READ_MODEL_PATH: join(dir, `${name}.read-models.db`), ...ENV }));

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'runledger-hooks-'));
      databaseUrl = await createDatabase(adminUrl, 'hooks');
      await Promise.all(['A', 'B', 'C'].map(start));
      receivers.push(await Receiver.start(), await Receiver.start());
    }, 60_000);

    afterAll(async () => {
      for (const server of Object.values(instances)) server.child.kill('SIGTERM');
      await Promise.all(Object.values(instances).map((server) => exitWithin(server, 10_000)));
      killLeftovers();
      await Promise.all(receivers.map((r) => r.close()));
      rmSync(dir, { recursive: true, force: true });
    });

    it('delivers each event to each endpoint once, whichever instance appended it; a killed holder is taken over', async () => {
      const hooks = [];
      for (const receiver of receivers) hooks.push((await api(instances.A.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, events: EVENTS })).body);
      const conversationId = await createConversation(instances.A.baseUrl);
      const startOn = async (name: string) =>
        (await api(instances[name].baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId, input: { text: 'one two three' } })).body
          .id as string;
      const ids = [await startOn('A'), await startOn('B'), await startOn('C'), await startOn('B')];
      // 8 events each: run.started, three deltas, run.completed.
      for (const receiver of receivers) await receiver.until(() => ids.every((id) => receiver.of(id).some((r) => r.json.type === 'run.completed')), 30_000);
      for (const receiver of receivers) {
        const perId = new Map<string, number>();
        for (const r of receiver.received) perId.set(String(r.headers['webhook-id']), (perId.get(String(r.headers['webhook-id'])) ?? 0) + 1);
        expect(receiver.received).toHaveLength(ids.length * 5);
        expect([...perId.values()].every((n) => n === 1)).toBe(true);
        for (const id of ids) expect(receiver.of(id).map((r) => r.json.data.sequence)).toEqual([2, 3, 4, 5, 7]);
      }
      // Who holds each endpoint: the log says; kill that instance, and another one takes over.
      const holderOf = (hookId: string) => {
        for (const [name, server] of Object.entries(instances)) if (server.output().includes(`webhook ${hookId}: lease taken by this instance`)) return name;
        return null;
      };
      const holder = holderOf(hooks[0].id)!;
      expect(holder).not.toBeNull();
      // Every outcome stored first, so that the survivor has nothing to send again.
      for (const hook of hooks) {
        for (;;) {
          const log = (await api(instances[holder].baseUrl, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=100`)).body.deliveries;
          if (log.length === ids.length * 5 && log.every((d: { status: string }) => d.status === 'delivered')) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      instances[holder].child.kill('SIGKILL');
      await instances[holder].exited;
      const survivor = Object.keys(instances).find((name) => name !== holder)!;
      const before = receivers.map((r) => r.received.length);
      const later = await startOn(survivor);
      for (const receiver of receivers) await receiver.until(() => receiver.of(later).some((r) => r.json.type === 'run.completed'), 30_000);
      for (const [i, receiver] of receivers.entries()) expect(receiver.received.length - before[i]).toBe(receiver.of(later).length);
      delete instances[holder];
    }, 90_000);
  });
}
