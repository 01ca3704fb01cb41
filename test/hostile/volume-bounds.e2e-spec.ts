import { api, useApp, waitForExecution } from '../support/app-harness';
import { expectError, postExecution, replay } from '../support/execution-helpers';

const KEYS = { acme: 'acme-key-0123456789abcdef', globex: 'globex-key-0123456789abcdef' };
const as = (tenant: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[tenant]}` });

/** How many events the tenant's audit feed holds: a refused request must leave it as it was. */
async function feedLength(baseUrl: string, headers: Record<string, string> = {}): Promise<number> {
  let after = 0;
  let count = 0;
  for (;;) {
    const page = (await api(baseUrl, 'GET', `/v1/events?after=${after}&limit=1000`, undefined, headers)).body;
    count += page.events.length;
    if (page.events.length === 0) return count;
    after = page.lastPosition;
  }
}

describe('bounds on what one request may make the service store', () => {
  const app = useApp({ conversation: true });

  it('input.text over 256 KiB and a config over 256 KiB are 400, nothing appended', async () => {
    const before = await feedLength(app.baseUrl);
    const res = await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'a '.repeat(131_073) } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/input.text is 262146 bytes; at most 262144.*MAX_INPUT_TEXT_BYTES/);
    const script = Array.from({ length: 9000 }, (_, i) => ({ type: 'text', text: `${i} ` }));
    const config = await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'x' }, config: { script } });
    expectError(config, 400, 'VALIDATION_ERROR');
    expect(config.body.error.message).toMatch(/config is \d+ bytes as JSON; at most 262144.*MAX_CONFIG_BYTES/);
    expect(await feedLength(app.baseUrl)).toBe(before);
    // Just under the bound is taken: multi-byte characters count as their UTF-8 bytes.
    const fits = await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'é'.repeat(131_072) } });
    expect(fits.status).toBe(201);
  });

  it('a feed of many 200 KiB events pages to its end in pages of at most 4 MiB, none lost or repeated', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await postExecution(app.baseUrl, {
        conversationId: app.conversationId,
        provider: 'scripted',
        input: { text: `big ${i}` },
        config: { script: [{ type: 'text', text: `${i}`.padEnd(200 * 1024, 'z') }] },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    for (const id of ids) await waitForExecution(app.baseUrl, id);
    const seen: number[] = [];
    let after = 0;
    let pages = 0;
    for (;;) {
      const res = await api(app.baseUrl, 'GET', `/v1/events?after=${after}&limit=1000`);
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(4 * 1024 * 1024 + 1024);
      if (res.body.events.length === 0) break;
      seen.push(...res.body.events.map((e: any) => e.position));
      after = res.body.lastPosition;
      pages++;
    }
    expect(pages).toBeGreaterThan(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    // Each big execution: queued (its config), started, one delta, done, completed.
    for (const id of ids.slice(0, 3)) expect((await replay(app.baseUrl, id)).map((e) => e.type)).toHaveLength(5);
    const allBig = ids.length * 5;
    expect(seen.length).toBeGreaterThanOrEqual(allBig);
    // About 10 MB through the store, the projector and the feed: past the default 30 s on a busy machine.
  }, 90_000);

  it('a replay without a limit is bounded by bytes too and says where to go on', async () => {
    const res = await postExecution(app.baseUrl, {
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: Array.from({ length: 24 }, (_, i) => ({ type: 'text', text: `${i}`.padEnd(10 * 1024, 'q') })) },
    });
    await waitForExecution(app.baseUrl, res.body.id);
    const events: any[] = [];
    let after = 0;
    for (;;) {
      const page = (await api(app.baseUrl, 'GET', `/v1/executions/${res.body.id}/events?after=${after}`)).body;
      events.push(...page.events);
      if (events.at(-1).sequence === page.lastSequence) break;
      after = events.at(-1).sequence;
    }
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(events.at(-1).type).toBe('run.completed');
  });
});

describe('MAX_PAGE_BYTES pages a replay', () => {
  const app = useApp({ conversation: true, env: { MAX_PAGE_BYTES: '65536' } });

  it('each replay page fits the bound and the pages join up', async () => {
    const res = await postExecution(app.baseUrl, {
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: Array.from({ length: 30 }, (_, i) => ({ type: 'text', text: `${i}`.padEnd(6 * 1024, 'q') })) },
    });
    await waitForExecution(app.baseUrl, res.body.id);
    const events: any[] = [];
    let pages = 0;
    for (;;) {
      const page = await api(app.baseUrl, 'GET', `/v1/executions/${res.body.id}/events?after=${events.length}&limit=1000`);
      // At most the bound, or a single event larger than it (run.queued carries the whole config).
      if (page.body.events.length > 1) expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(65536 + 256);
      events.push(...page.body.events);
      pages++;
      if (page.body.events.length === 0 || events.at(-1).sequence === page.body.lastSequence) break;
    }
    expect(pages).toBeGreaterThan(2);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 34 }, (_, i) => i + 1));
  });
});

describe('MAX_EVENTS_PER_EXECUTION', () => {
  const app = useApp({ conversation: true, env: { MAX_EVENTS_PER_EXECUTION: '200' } });

  it('the scripted echo of 1 MiB of words stops at the bound with LIMIT_EXCEEDED', async () => {
    const res = await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'w '.repeat(100_000) } });
    expect(res.status).toBe(201);
    const ended = await waitForExecution(app.baseUrl, res.body.id);
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'LIMIT_EXCEEDED' } });
    expect(ended.error.message).toMatch(/200 events.*MAX_EVENTS_PER_EXECUTION/);
    expect(ended.lastSequence).toBeLessThanOrEqual(200);
    const events = await replay(app.baseUrl, res.body.id);
    expect(events.filter((e) => e.type === 'run.failed')).toHaveLength(1);
    expect(events.at(-1).type).toBe('run.failed');
  });
});

describe('MAX_RUNNING_PER_TENANT', () => {
  const app = useApp({ env: { API_KEYS: `acme:${KEYS.acme},globex:${KEYS.globex}`, MAX_RUNNING_PER_TENANT: '3' } });

  async function start(tenant: keyof typeof KEYS, conversationId: string) {
    return api(
      app.baseUrl,
      'POST',
      '/v1/executions',
      { conversationId, provider: 'scripted', input: { text: 'x' }, config: { script: [{ type: 'delay', ms: 60000 }] } },
      as(tenant),
    );
  }

  it('racing starts pass the cap by none; one more is 429 with Retry-After; other tenants are unaffected; an end frees a place', async () => {
    const acme = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, as('acme'))).body.id;
    const globex = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, as('globex'))).body.id;
    const raced = await Promise.all(Array.from({ length: 12 }, () => start('acme', acme)));
    const started = raced.filter((r) => r.status === 201);
    expect(started).toHaveLength(3);
    for (const refused of raced.filter((r) => r.status !== 201)) {
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.body.error.message).toMatch(/MAX_RUNNING_PER_TENANT/);
    }
    expect((await start('globex', globex)).status).toBe(201);
    const conversation = (await api(app.baseUrl, 'GET', `/v1/conversations/${acme}`, undefined, as('acme'))).body;
    expect(conversation.executions).toHaveLength(3);

    expect((await api(app.baseUrl, 'POST', `/v1/executions/${started[0].body.id}:cancel`, {}, as('acme'))).status).toBe(200);
    let again = await start('acme', acme);
    for (let i = 0; again.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await start('acme', acme);
    }
    expect(again.status).toBe(201);
    for (const id of [...started.slice(1).map((r) => r.body.id), again.body.id]) {
      await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, {}, as('acme'));
    }
  });
});
