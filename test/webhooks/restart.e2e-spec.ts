import { rmSync } from 'node:fs';
import { api, storeEnv, tempSqlitePath } from '../support/app-harness';
import { built, killLeftovers, launch, ServerProcess } from '../runtime/compiled-server';
import { Receiver } from './receiver';

const EVENTS = ['run.started', 'output.text.delta', 'run.completed', 'run.failed'];
const SCRIPT = { script: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `part ${n} ` })) };

/**
 * docs/webhooks.md#the-checkpoint against the compiled server: a kill -9 in mid-delivery loses
 * nothing (every event arrives at least once after the restart, each execution in order), and the
 * read-model file plays no part in what is sent (deleting it re-sends nothing).
 */
(built ? describe : describe.skip)('webhook delivery across restarts', () => {
  afterEach(killLeftovers);
  let receiver: Receiver;
  beforeEach(async () => (receiver = await Receiver.start()));
  afterEach(() => receiver.close());

  it('resumes after kill -9 where delivery stood, and a lost read-model file re-sends nothing', async () => {
    const sqlitePath = tempSqlitePath();
    const env = {
      SQLITE_PATH: sqlitePath,
      ...(await storeEnv(sqlitePath)),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE_MS: Array(10).fill('100').join(','),
      // A fresh instance id per start on PostgreSQL, whose lease the dead one held.
      HEARTBEAT_INTERVAL_MS: '100',
      HEARTBEAT_LAPSE_MS: '400',
    };
    receiver.delayMs = 15;
    let server: ServerProcess = await launch(env);
    const hook = (await api(server.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, events: EVENTS })).body;
    const conversationId = (await api(server.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await api(server.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId, input: { text: 'x y' }, config: SCRIPT })).body.id);
    }
    await receiver.until((r) => r.length >= 8);
    server.child.kill('SIGKILL');
    await server.exited;
    const beforeRestart = receiver.received.length;

    server = await launch(env);
    const expected = async () => {
      const all: string[] = [];
      for (const id of ids) {
        const events = (await api(server.baseUrl, 'GET', `/v1/executions/${id}/events`)).body.events;
        all.push(...events.filter((e: any) => EVENTS.includes(e.type)).map((e: any) => `${id}/${e.sequence}`));
      }
      return all;
    };
    // Every run ends (those cut off by the kill as RUNTIME_INTERRUPTED), and each of their events arrives.
    for (const id of ids) {
      for (;;) {
        const status = (await api(server.baseUrl, 'GET', `/v1/executions/${id}`)).body.status;
        if (['completed', 'failed'].includes(status)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const want = await expected();
    const got = () => new Set(receiver.received.map((r) => `${r.json.data.executionId}/${r.json.data.sequence}`));
    await receiver.until(() => want.every((key) => got().has(key)), 30_000);
    expect(receiver.received.length).toBeGreaterThan(beforeRestart);
    for (const id of ids) {
      const firsts = [...new Set(receiver.of(id).map((r) => r.json.data.sequence))];
      expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
    }
    // Settled: the log says each is delivered once the last outcome is written.
    for (;;) {
      const log = (await api(server.baseUrl, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=100`)).body.deliveries;
      if (log.length === want.length && log.every((d: any) => d.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    server.child.kill('SIGTERM');
    await server.exited;
    const settled = receiver.received.length;
    for (const file of ['.read-models.db', '.read-models.webhooks.db']) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(sqlitePath.replace(/\.db$/, file) + suffix, { force: true });
    }
    server = await launch(env);
    const later = (await api(server.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId, input: { text: 'x y' } })).body.id;
    await receiver.until((r) => r.some((x) => x.json.data.executionId === later && x.json.type === 'run.completed'));
    expect(receiver.received.length - settled).toBe(receiver.of(later).length);
    server.child.kill('SIGTERM');
    await server.exited;
  }, 60_000);
});
