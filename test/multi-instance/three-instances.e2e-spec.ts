import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, createConversation, readSse } from '../support/app-harness';
import { createDatabase } from '../support/postgres-cluster';
import { built, exitWithin, killLeftovers, launch, ServerProcess } from '../runtime/compiled-server';

/**
 * Three real processes of the compiled server on one PostgreSQL database. Each keeps
 * its own read models; the log drives the runner across them.
 */
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = !built ? 'dist/ is not built (npm test builds it)' : (process.env.RUNLEDGER_PG_SKIP_REASON ?? 'no PostgreSQL');
const HEARTBEAT = { HEARTBEAT_INTERVAL_MS: '200', HEARTBEAT_LAPSE_MS: '1200' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

if (!adminUrl || !built) {
  process.stderr.write(`Multi-instance suite skipped: ${skipReason}\n`);
  describe.skip('three instances on one PostgreSQL', () => {
    it('runs three instances', () => undefined);
  });
} else {
  describe('three instances on one PostgreSQL', () => {
    let dir: string;
    let databaseUrl: string;
    const instances: Record<string, ServerProcess> = {};

    const start = async (name: string) => {
      instances[name] = await launch({
        EVENT_STORE: 'postgres',
        DATABASE_URL: databaseUrl,
        READ_MODEL_PATH: join(dir, `${name}.read-models.db`),
        LOG_LEVEL: process.env.MULTI_LOG_LEVEL ?? 'info',
        ...HEARTBEAT,
      });
      return instances[name];
    };
    const url = (name: string) => instances[name].baseUrl;
    const get = async (name: string, id: string) => (await api(url(name), 'GET', `/v1/executions/${id}`)).body;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'runledger-multi-'));
      databaseUrl = await createDatabase(adminUrl, 'multi');
      await start('A');
      await Promise.all([start('B'), start('C')]);
    }, 60_000);

    afterAll(async () => {
      for (const server of Object.values(instances)) server.child.kill('SIGTERM');
      await Promise.all(Object.values(instances).map((server) => exitWithin(server, 10_000)));
      killLeftovers();
      rmSync(dir, { recursive: true, force: true });
    });

    it('start on A, stream from B, answer through C, cancel through B: one cleanup (on A), one run.cancelled', async () => {
      const conversationId = await createConversation(url('A'));
      const script = [
        { type: 'action', kind: 'approval', prompt: 'go?' },
        { type: 'text', text: 'approved ' },
        { type: 'delay', ms: 60000 },
      ];
      const started = await api(url('A'), 'POST', '/v1/executions', {
        conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script, cleanup: 'fail' },
      });
      expect(started.status).toBe(201);
      const id = started.body.id;
      const stream = readSse(url('B'), `/v1/executions/${id}/events`, {});
      const waiting = await waitFor('the action on C', async () => {
        const e = await get('C', id);
        return e?.status === 'requires_action' ? e : undefined;
      });
      const answered = await api(url('C'), 'POST', `/v1/executions/${id}/actions/${waiting.pendingActionIds[0]}:respond`, { decision: 'approve' });
      expect(answered.status).toBe(200);
      expect(answered.body.status).toBe('resolved');
      // A's provider hears the answer through the log and goes on.
      await waitFor('the text after the answer', async () => ((await get('B', id)).lastSequence >= 5 ? true : undefined));
      const cancels = await Promise.all([
        api(url('B'), 'POST', `/v1/executions/${id}:cancel`, { reason: 'from B' }),
        api(url('C'), 'POST', `/v1/executions/${id}:cancel`, { reason: 'from C' }),
      ]);
      for (const cancelled of cancels) {
        expect(cancelled.status).toBe(200);
        expect(cancelled.body.status).toBe('cancelled');
        // The cleanup ran where the provider runs: only A could report its failure.
        expect(cancelled.body.cancellation.providerCleanupError).toBe('scripted cleanup failed');
      }
      expect(cancels[0].body).toEqual(cancels[1].body);
      const events = (await api(url('C'), 'GET', `/v1/executions/${id}/events`)).body.events;
      expect(events.filter((e: any) => e.type === 'run.cancelled')).toHaveLength(1);
      expect(events.map((e: any) => e.type)).toEqual([
        'run.queued',
        'run.started',
        'action.required',
        'action.responded',
        'output.text.delta',
        'run.cancelled',
      ]);
      const streamed = await stream;
      expect(streamed.messages.filter((m) => m.id).map((m) => JSON.parse(m.data!))).toEqual(events);
    }, 60_000);

    it('3 × 20 racing starts with one idempotency key across the instances make one execution', async () => {
      const conversationId = await createConversation(url('B'));
      const body = { conversationId, provider: 'scripted', input: { text: 'once' }, idempotencyKey: `race-${Date.now()}` };
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => api(url(['A', 'B', 'C'][i % 3]), 'POST', '/v1/executions', body)));
      expect(answers.every((a) => a.status === 200 || a.status === 201)).toBe(true);
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      const id = answers[0].body.id;
      await waitFor('the one run to complete', async () => ((await get('C', id)).status === 'completed' ? true : undefined));
      const listed = (await api(url('A'), 'GET', `/v1/conversations/${conversationId}`)).body.executions;
      expect(listed.map((e: any) => e.id)).toEqual([id]);
    }, 60_000);

    it('kill -9 of an instance mid-run: another ends its runs within the heartbeat bound, and SSE clients elsewhere see the end', async () => {
      const victim = await start('D');
      const conversationId = await createConversation(victim.baseUrl);
      const started = await api(victim.baseUrl, 'POST', '/v1/executions', {
        conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: {
          script: [
            { type: 'text', text: 'before ' },
            { type: 'delay', ms: 60000 },
          ],
        },
      });
      const id = started.body.id;
      await waitFor('the run to start', async () => ((await get('B', id))?.status === 'running' ? true : undefined));
      const stream = readSse(url('B'), `/v1/executions/${id}/events`, {});
      await sleep(100);
      victim.child.kill('SIGKILL');
      const killedAt = Date.now();
      await exitWithin(victim, 5000);
      delete instances.D;
      const ended = await waitFor('another instance to end the run', async () => {
        const e = await get('C', id);
        return e.status === 'failed' ? e : undefined;
      });
      expect(Date.now() - killedAt).toBeLessThan(5000);
      expect(ended.error.code).toBe('RUNTIME_INTERRUPTED');
      const streamed = await stream;
      const types = streamed.messages.filter((m) => m.id).map((m) => m.event);
      expect(types.at(-1)).toBe('run.failed');
      const events = (await api(url('A'), 'GET', `/v1/executions/${id}/events`)).body.events;
      expect(events.filter((e: any) => e.type === 'run.failed')).toHaveLength(1);
    }, 60_000);

    it('a rolling restart of all three under a steady load loses no acknowledged event and leaves no run running', async () => {
      const conversationId = await createConversation(url('A'));
      const acknowledged = new Map<string, number>();
      let stopLoad = false;
      let turn = 0;
      const load = (async () => {
        while (!stopLoad) {
          const names = Object.keys(instances);
          const name = names[turn++ % names.length];
          const script = [
            { type: 'text', text: 'a ' },
            { type: 'delay', ms: 300 },
            { type: 'text', text: 'b' },
          ];
          const res = await api(url(name), 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'x' }, config: { script } }).catch(
            () => undefined,
          );
          if (res?.status === 201) acknowledged.set(res.body.id, res.body.lastSequence);
          await sleep(30);
        }
      })();
      try {
        for (const name of ['A', 'B', 'C']) {
          await sleep(700);
          const old = instances[name];
          delete instances[name];
          old.child.kill('SIGTERM');
          const exit = await exitWithin(old, 10_000);
          // On a failed stop the server's own last lines say why.
          if (exit?.code !== 0) process.stderr.write(`instance ${name} stopped with ${JSON.stringify(exit)}:\n${old.output().slice(-4000)}\n`);
          expect(exit).toEqual({ code: 0, signal: null });
          await start(name);
        }
        await sleep(500);
      } finally {
        // A failed restart must not leave the load running: it would keep jest from exiting.
        stopLoad = true;
        await load;
      }
      expect(acknowledged.size).toBeGreaterThan(10);
      // Every acknowledged execution exists on every instance, ends, and its stream has no hole.
      for (const id of acknowledged.keys()) {
        const ended = await waitFor(`${id} to end`, async () => {
          const e = await get('B', id);
          return ['completed', 'failed', 'cancelled'].includes(e?.status) ? e : undefined;
        });
        expect(['completed', 'failed']).toContain(ended.status);
        if (ended.status === 'failed') expect(ended.error.code).toBe('RUNTIME_INTERRUPTED');
        const events = (await api(url('C'), 'GET', `/v1/executions/${id}/events`)).body.events;
        expect(events.map((e: any) => e.sequence)).toEqual(events.map((_: unknown, i: number) => i + 1));
      }
      const running = (await api(url('A'), 'GET', `/v1/executions?conversationId=${conversationId}&status=running&limit=100`)).body.executions;
      expect(running).toEqual([]);
    }, 120_000);
  });
}
