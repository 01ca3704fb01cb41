import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { api, startApp, tempSqlitePath } from '../support/app-harness';
import { describeCli, run, runCommand } from './cli-process';

/**
 * `npm run -s export`: the audit feed as NDJSON, line for line what GET /v1/events answers, and
 * nothing else on stdout; without --tenant every tenant's events, each naming its tenant.
 */
const KEYS = { acme: 'acme-key-1-0123456789', globex: 'globex-key-1-0123456789' };
const auth = (tenant: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[tenant]}` });

/** Every page of a tenant's feed after `after`, through HTTP, in small pages so paging is exercised. */
async function httpFeed(baseUrl: string, tenant: keyof typeof KEYS, after = 0): Promise<any[]> {
  const events: any[] = [];
  for (;;) {
    const page = await api(baseUrl, 'GET', `/v1/events?after=${after}&limit=7`, undefined, auth(tenant));
    expect(page.status).toBe(200);
    events.push(...page.body.events);
    if (page.body.events.length < 7) return events;
    after = page.body.lastPosition;
  }
}

async function waitEnded(baseUrl: string, tenant: keyof typeof KEYS, id: string): Promise<void> {
  for (;;) {
    const res = await api(baseUrl, 'GET', `/v1/executions/${id}`, undefined, auth(tenant));
    if (['completed', 'failed', 'cancelled'].includes(res.body.status)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const lines = (stdout: string) => stdout.split('\n').slice(0, -1);

describeCli('export (compiled command, real SQLite file)', () => {
  const sqlitePath = tempSqlitePath();
  const env = { SQLITE_PATH: sqlitePath };
  const feeds: Record<string, any[]> = {};

  beforeAll(async () => {
    const app = await startApp({ sqlitePath, env: { API_KEYS: `acme:${KEYS.acme},globex:${KEYS.globex}` } });
    try {
      const conversation = async (tenant: keyof typeof KEYS) =>
        (await api(app.baseUrl, 'POST', '/v1/conversations', { title: `${tenant} ✓`, metadata: { n: 1 } }, auth(tenant))).body.id;
      const start = async (tenant: keyof typeof KEYS, conversationId: string, extra: Record<string, unknown> = {}) => {
        const res = await api(
          app.baseUrl,
          'POST',
          '/v1/executions',
          { conversationId, provider: 'scripted', input: { text: `hi from ${tenant} "quoted" ü` }, ...extra },
          auth(tenant),
        );
        expect(res.status).toBe(201);
        await waitEnded(app.baseUrl, tenant, res.body.id);
      };
      const acme = await conversation('acme');
      const globex = await conversation('globex');
      // Interleaved, so each tenant's feed has gaps in its positions; the idempotency claim is internal.
      await start('acme', acme, { idempotencyKey: 'export-1' });
      await start('globex', globex);
      await start('acme', acme, {
        config: {
          script: [
            { type: 'text', text: 'a' },
            { type: 'fail', message: 'no' },
          ],
        },
      });
      await start('globex', globex, { config: { script: [{ type: 'artifact', name: 'r.txt', mediaType: 'text/plain' }] } });
      feeds.acme = await httpFeed(app.baseUrl, 'acme');
      feeds.globex = await httpFeed(app.baseUrl, 'globex');
      feeds.acmeAfter = await httpFeed(app.baseUrl, 'acme', feeds.globex[3].position);
    } finally {
      await app.close();
    }
  });

  afterAll(() => rmSync(dirname(sqlitePath), { recursive: true, force: true }));

  it("writes one tenant's feed, line for line what GET /v1/events answers, and nothing else on stdout", async () => {
    const result = await runCommand('export', ['--after', '0', '--tenant', 'acme'], env);
    expect(result.code).toBe(0);
    expect(feeds.acme.length).toBeGreaterThan(10);
    expect(result.stdout).toBe(feeds.acme.map((e) => `${JSON.stringify(e)}\n`).join(''));
    expect(result.stderr).toMatch(/exported \d+ events of tenant acme/);
  });

  it('starts after --after, like the feed', async () => {
    const result = await runCommand('export', ['--tenant', 'acme', '--after', String(feeds.globex[3].position)], env);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual(feeds.acmeAfter.map((e) => JSON.stringify(e)));
    expect(feeds.acmeAfter.length).toBeLessThan(feeds.acme.length);
  });

  it('without --tenant exports every tenant in global order, each line adding its tenantId', async () => {
    const result = await runCommand('export', ['--after', '0'], env);
    expect(result.code).toBe(0);
    const all = lines(result.stdout).map((line) => JSON.parse(line));
    const expected = [...feeds.acme.map((e) => ({ ...e, tenantId: 'acme' })), ...feeds.globex.map((e) => ({ ...e, tenantId: 'globex' }))];
    expected.sort((a, b) => a.position - b.position);
    expect(all).toEqual(expected);
    // The same bytes as the feed's, with tenantId last.
    expect(lines(result.stdout)).toEqual(expected.map((e) => JSON.stringify(e)));
  });

  it('through `npm run -s export` (which builds first) stdout still holds only the NDJSON', async () => {
    const result = await run('npm', ['run', '-s', 'export', '--', '--after', '0', '--tenant', 'globex'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(feeds.globex.map((e) => `${JSON.stringify(e)}\n`).join(''));
  }, 180_000);

  it('refuses bad options and a missing file on stderr with exit code 1, writing nothing to stdout', async () => {
    const bad = await runCommand('export', ['--after', '1.5'], env);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/--after must be a non-negative integer/);
    const unknown = await runCommand('export', ['--tenants', 'acme'], env);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toMatch(/usage: npm run -s export/);
    const missing = join(dirname(sqlitePath), 'nope', 'x.db');
    const absent = await runCommand('export', [], { SQLITE_PATH: missing });
    expect(absent).toMatchObject({ code: 1, stdout: '' });
    expect(absent.stderr).toContain(`no event store at ${missing}`);
  });
});
