import { api, useApp, onPostgres } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#runtime-and-providers and docs/api.md#the-scripted-provider: what the runtime says about itself and the built-in scripted provider. */
const SCRIPTED = {
  id: 'scripted',
  displayName: 'Scripted (deterministic)',
  capabilities: {
    'output.text.stream': 'native',
    'actions.approval': 'native',
    'actions.input': 'native',
    artifacts: 'native',
    cancellation: 'native',
    'conversation.history': 'native',
    tools: 'emulated',
    'output.structured': 'degraded',
    'input.image': 'unsupported',
  },
};

describe('runtime and providers (docs/api.md#runtime-and-providers)', () => {
  const app = useApp();

  it('GET /v1/runtime describes the runtime with exactly the documented fields', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/runtime');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['eventStore', 'name', 'projections', 'protocolVersion', 'providers', 'version']);
    // Each read model with where it stands in the log.
    expect(res.body.projections.map((p: any) => p.name).sort()).toEqual(['actions', 'artifacts', 'conversations', 'executions', 'usage']);
    for (const projection of res.body.projections) expect(projection).toEqual({ name: expect.any(String), position: expect.any(Number), lag: 0 });
    expect(res.body.protocolVersion).toBe('2026-09-02');
    expect(res.body.eventStore).toBe(onPostgres ? 'postgres' : 'sqlite');
    expect(typeof res.body.name).toBe('string');
    expect(res.body.name.length).toBeGreaterThan(0);
    expect(typeof res.body.version).toBe('string');
    expect(res.body.version.length).toBeGreaterThan(0);
    expect(res.body.providers).toEqual([SCRIPTED]);
  });

  it('GET /v1/providers lists the scripted manifest exactly', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/providers');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ providers: [SCRIPTED] });
  });

  it('GET /v1/providers/scripted answers the manifest itself', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/providers/scripted');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(SCRIPTED);
  });

  it.each(['nope', 'Scripted', 'scripted%20', '0190f5d4-6b3e-7c3a-8f00-000000000000', 'abc:unknown', '%F0%9F%98%80'])(
    'an unknown provider id (%s) is 404 PROVIDER_NOT_FOUND',
    async (id) => {
      expectError(await api(app.baseUrl, 'GET', `/v1/providers/${id}`), 404, 'PROVIDER_NOT_FOUND');
    },
  );

  it.each(['/v1/runtime', '/v1/providers', '/v1/providers/scripted'])('%s refuses query parameters', async (path) => {
    expectError(await api(app.baseUrl, 'GET', `${path}?x=1`), 400, 'VALIDATION_ERROR');
  });
});
