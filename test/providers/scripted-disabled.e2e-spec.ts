import { ConfigError, loadConfig } from '../../src/config/config';
import { api, createConversation, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { writeProvidersFile } from './support/provider-app';

/**
 * SCRIPTED_PROVIDER=disabled takes the built-in `scripted` provider away (its script lets any
 * tenant choose how much output a run makes): it is in no list and cannot be started.
 */
const CLAUDE = { id: 'claude', kind: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-5' };

describe('SCRIPTED_PROVIDER=disabled', () => {
  const app = useApp({
    env: { SCRIPTED_PROVIDER: 'disabled', PROVIDERS_CONFIG: writeProvidersFile([CLAUDE]), ANTHROPIC_API_KEY: 'sk-ant-test-never-used' },
  });

  it('leaves scripted out of GET /v1/providers and GET /v1/runtime', async () => {
    const providers = await api(app.baseUrl, 'GET', '/v1/providers');
    expect(providers.body.providers.map((p: { id: string }) => p.id)).toEqual(['claude']);
    const runtime = await api(app.baseUrl, 'GET', '/v1/runtime');
    expect(runtime.body.providers.map((p: { id: string }) => p.id)).toEqual(['claude']);
    expectError(await api(app.baseUrl, 'GET', '/v1/providers/scripted'), 404, 'PROVIDER_NOT_FOUND');
  });

  it('answers a start with it 404 PROVIDER_NOT_FOUND', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const res = await api(app.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'hello' } });
    expectError(res, 404, 'PROVIDER_NOT_FOUND');
  });

  it('refuses a PROVIDERS_CONFIG instance of kind scripted, which would bring it back under another id', () => {
    const file = writeProvidersFile([{ id: 'demo', kind: 'scripted' }]);
    expect(() => loadConfig({ SCRIPTED_PROVIDER: 'disabled', PROVIDERS_CONFIG: file })).toThrow(ConfigError);
    expect(() => loadConfig({ SCRIPTED_PROVIDER: 'disabled', PROVIDERS_CONFIG: file })).toThrow(
      'PROVIDERS_CONFIG instance "demo" is of kind scripted, which SCRIPTED_PROVIDER=disabled turns off',
    );
  });
});

describe('SCRIPTED_PROVIDER unset', () => {
  const app = useApp();

  it('offers scripted, as before', async () => {
    expect((await api(app.baseUrl, 'GET', '/v1/providers/scripted')).status).toBe(200);
  });
});
