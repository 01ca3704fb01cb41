import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { api, createConversation } from '../support/app-harness';
import { createDatabase } from '../support/postgres-cluster';
import { built, exitWithin, killLeftovers, launch } from '../runtime/compiled-server';
import { Receiver } from './receiver';

/**
 * The webhook supervisor asks the database who is alive when an endpoint may need a deliverer,
 * not on every batch of its follower: a batch of checkpoints alone (one per commit anywhere in
 * the log) changes no endpoint. It used to ask on each one, a query per commit on every instance.
 * Counted by PostgreSQL itself: scans of `runledger_instances` over a server's whole life.
 */
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = !built ? 'dist/ is not built (npm test builds it)' : (process.env.RUNLEDGER_PG_SKIP_REASON ?? 'no PostgreSQL');
const RUNS = 30;

if (!adminUrl || !built) {
  process.stderr.write(`Webhook liveness-query suite skipped: ${skipReason}\n`);
  describe.skip('webhook supervisor liveness queries', () => it('asks rarely', () => undefined));
} else {
  describe('webhook supervisor liveness queries on PostgreSQL', () => {
    let dir: string;
    afterAll(() => {
      killLeftovers();
      rmSync(dir, { recursive: true, force: true });
    });

    it('are not one per commit: an endpoint still gets every event', async () => {
      dir = mkdtempSync(join(tmpdir(), 'runledger-liveness-'));
      const databaseUrl = await createDatabase(adminUrl, 'liveness');
      const server = await launch({
        EVENT_STORE: 'postgres',
        DATABASE_URL: databaseUrl,
        READ_MODEL_PATH: join(dir, 'read-models.db'),
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      });
      const receiver = await Receiver.start();
      try {
        await api(server.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, events: ['run.completed'] });
        const conversationId = await createConversation(server.baseUrl);
        const ids: string[] = [];
        for (let i = 0; i < RUNS; i++) {
          const started = await api(server.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId, input: { text: 'one two three four' } });
          ids.push(started.body.id as string);
        }
        await receiver.until(() => ids.every((id) => receiver.of(id).length === 1), 30_000);
      } finally {
        server.child.kill('SIGTERM');
        await exitWithin(server, 10_000);
        await receiver.close();
      }

      const sql = new Client({ connectionString: databaseUrl });
      await sql.connect();
      try {
        // A backend's table counters reach the shared statistics when it exits: wait for the server's.
        for (let i = 0; i < 100; i++) {
          const { rows } = await sql.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        const events = (await sql.query('SELECT count(*)::int AS n FROM runledger_events')).rows[0].n as number;
        const scans = (await sql.query(`SELECT (seq_scan + coalesce(idx_scan, 0))::int AS n FROM pg_stat_user_tables WHERE relname = 'runledger_instances'`))
          .rows[0].n as number;
        // 8+ events per run, committed in several appends each; the heartbeat, the sweep and the
        // supervisor's own timer touch the table a few times per 2 s of the server's life.
        expect(events).toBeGreaterThanOrEqual(RUNS * 8);
        expect(scans).toBeLessThan(RUNS);
      } finally {
        await sql.end();
      }
    }, 90_000);
  });
}
