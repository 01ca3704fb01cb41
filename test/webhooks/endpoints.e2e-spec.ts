import { api, useApp } from '../support/app-harness';
import { DELIVERY_ENV, Receiver, verify } from './receiver';

const ACME = { authorization: 'Bearer acme-key-0123456789abc' };
const GLOBEX = { authorization: 'Bearer globex-key-0123456789abc' };

/** docs/api.md#webhooks: the URL rules, the bounds, tenants. Only loopback names and addresses appear here. */
describe('webhook endpoints without WEBHOOK_ALLOW_*', () => {
  const app = useApp();

  it.each([
    ['plain http', 'http://hooks.example.com/x', /https/],
    ['localhost', 'https://localhost/hook', /loopback, private or link-local/],
    ['a loopback IPv4 address', 'https://127.0.0.1:8443/hook', /loopback, private or link-local/],
    ['a loopback IPv6 address', 'https://[::1]/hook', /loopback, private or link-local/],
    ['another loopback IPv4 address', 'https://127.8.9.10/hook', /loopback, private or link-local/],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook', /loopback, private or link-local/],
    ['no URL at all', 'hooks', /absolute URL/],
    ['another scheme', 'ftp://localhost/x', /https/],
    ['credentials', 'https://user:pw@localhost/x', /credentials/],
  ])('refuses %s with 400 and appends nothing', async (_name, url, message) => {
    const res = await api(app.baseUrl, 'POST', '/v1/webhooks', { url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
    expect((await api(app.baseUrl, 'GET', '/v1/webhooks')).body.webhooks).toEqual([]);
  });

  it.each([
    [{ url: 'https://localhost/x', events: ['run.started', 'run.exploded'] }, /events must contain only/],
    [{ url: 'https://localhost/x', events: [] }, /events must not be empty/],
    [{ url: `https://localhost/${'a'.repeat(2048)}` }, /url must be from 1 to 2048/],
    [{ url: 'https://localhost/x', description: 'd'.repeat(501) }, /description must be from 1 to 500/],
    [{ url: 'https://localhost/x', secret: 'whsec_mine' }, /secret is not a known field/],
    [{}, /url/],
  ])('checks the body first (%#)', async (body, message) => {
    const res = await api(app.baseUrl, 'POST', '/v1/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });
});

describe('webhook endpoints, tenants and management', () => {
  const app = useApp({
    env: { ...DELIVERY_ENV, API_KEYS: 'acme:acme-key-0123456789abc,globex:globex-key-0123456789abc', WEBHOOK_MAX_PER_TENANT: '3' },
  });
  let receiver: Receiver;
  beforeEach(async () => (receiver = await Receiver.start()));
  afterEach(() => receiver.close());
  afterEach(async () => {
    for (const headers of [ACME, GLOBEX]) {
      for (const hook of (await api(app.baseUrl, 'GET', '/v1/webhooks', undefined, headers)).body.webhooks) {
        await api(app.baseUrl, 'DELETE', `/v1/webhooks/${hook.id}`, undefined, headers);
      }
    }
  });

  const register = async (headers: Record<string, string>, body: Record<string, unknown> = {}) => {
    const res = await api(app.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, events: ['run.started', 'run.completed'], ...body }, headers);
    expect(res.status).toBe(201);
    return res.body;
  };
  const run = async (headers: Record<string, string>) => {
    const conversation = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, headers)).body.id;
    const execution = (
      await api(app.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', conversationId: conversation, input: { text: 'hi there' } }, headers)
    ).body;
    for (;;) {
      const status = (await api(app.baseUrl, 'GET', `/v1/executions/${execution.id}`, undefined, headers)).body.status;
      if (['completed', 'failed', 'cancelled'].includes(status)) return execution.id as string;
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it("keeps tenants apart: another tenant's endpoint is 404 and it is told only of its own executions", async () => {
    const hook = await register(ACME, { description: 'ops' });
    for (const [method, path] of [
      ['GET', `/v1/webhooks/${hook.id}`],
      ['DELETE', `/v1/webhooks/${hook.id}`],
      ['POST', `/v1/webhooks/${hook.id}:rotate-secret`],
      ['GET', `/v1/webhooks/${hook.id}/deliveries`],
    ]) {
      expect((await api(app.baseUrl, method, path, undefined, GLOBEX)).status).toBe(404);
    }
    expect((await api(app.baseUrl, 'POST', `/v1/webhooks/${hook.id}:replay`, { after: 0 }, GLOBEX)).status).toBe(404);
    expect((await api(app.baseUrl, 'GET', '/v1/webhooks', undefined, GLOBEX)).body.webhooks).toEqual([]);
    const listed = (await api(app.baseUrl, 'GET', '/v1/webhooks', undefined, ACME)).body.webhooks;
    expect(listed).toEqual([
      { id: hook.id, url: receiver.url, events: ['run.started', 'run.completed'], description: 'ops', status: 'enabled', createdAt: hook.createdAt },
    ]);
    const theirs = await run(GLOBEX);
    const ours = await run(ACME);
    await receiver.until((r) => r.some((x) => x.json.data.executionId === ours && x.json.type === 'run.completed'));
    expect(receiver.of(theirs)).toEqual([]);
  });

  it('bounds the endpoints of a tenant', async () => {
    for (let i = 0; i < 3; i++) await register(ACME);
    const over = await api(app.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url }, ACME);
    expect(over.status).toBe(429);
    expect(over.body.error.message).toMatch(/WEBHOOK_MAX_PER_TENANT/);
    await register(GLOBEX);
  });

  it('delivers nothing to a deleted endpoint', async () => {
    const gone = await register(ACME);
    expect((await api(app.baseUrl, 'DELETE', `/v1/webhooks/${gone.id}`, undefined, ACME)).status).toBe(204);
    expect((await api(app.baseUrl, 'GET', `/v1/webhooks/${gone.id}`, undefined, ACME)).status).toBe(404);
    expect((await api(app.baseUrl, 'DELETE', `/v1/webhooks/${gone.id}`, undefined, ACME)).status).toBe(404);
    const other = await Receiver.start();
    try {
      await register(ACME, { url: other.url });
      const id = await run(ACME);
      // The endpoint still there was told; by then the deleted one had read past its deletion.
      await other.until((r) => r.some((x) => x.json.data.executionId === id && x.json.type === 'run.completed'));
      expect(receiver.received).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('signs with both secrets after a rotation', async () => {
    const hook = await register(ACME);
    const rotated = await api(app.baseUrl, 'POST', `/v1/webhooks/${hook.id}:rotate-secret`, undefined, ACME);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: hook.id, status: 'enabled' });
    expect(rotated.body.secret).not.toBe(hook.secret);
    const id = await run(ACME);
    const [first] = await receiver.until((r) => r.some((x) => x.json.data.executionId === id));
    expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(hook.secret, first)).toEqual(first.json);
    expect(verify(rotated.body.secret, first)).toEqual(first.json);
  });

  it('replays every matching event after a position with the same webhook-ids', async () => {
    const hook = await register(ACME);
    const id = await run(ACME);
    await receiver.until((r) => r.filter((x) => x.json.data.executionId === id).length === 2);
    const first = receiver.of(id).map((r) => r.headers['webhook-id']);
    const from = receiver.of(id)[0].json.data.position - 1;
    const replay = await api(app.baseUrl, 'POST', `/v1/webhooks/${hook.id}:replay`, { after: from }, ACME);
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ after: from, events: 2 });
    await receiver.until(() => receiver.of(id).length === 4);
    expect(receiver.of(id).map((r) => r.headers['webhook-id'])).toEqual([...first, ...first]);
    for (const request of receiver.of(id)) verify(hook.secret, request);
    expect((await api(app.baseUrl, 'POST', `/v1/webhooks/${hook.id}:replay`, { after: -1 }, ACME)).status).toBe(400);
    expect((await api(app.baseUrl, 'POST', `/v1/webhooks/${hook.id}:replay`, { after: 10 ** 12 }, ACME)).status).toBe(400);
  });

  it('pages the delivery log by position', async () => {
    const hook = await register(ACME);
    const id = await run(ACME);
    await receiver.until(() => receiver.of(id).length === 2);
    let all: any[] = [];
    while (all.length < 2) all = (await api(app.baseUrl, 'GET', `/v1/webhooks/${hook.id}/deliveries`, undefined, ACME)).body.deliveries;
    const page = await api(app.baseUrl, 'GET', `/v1/webhooks/${hook.id}/deliveries?after=${all[0].position}&limit=1`, undefined, ACME);
    expect(page.body.deliveries).toEqual([all[1]]);
    expect((await api(app.baseUrl, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=101`, undefined, ACME)).status).toBe(400);
  });
});
