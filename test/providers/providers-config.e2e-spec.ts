import { spawnSync } from 'node:child_process';
import { api, createConversation, RunningApp, startApp, waitForExecution } from '../support/app-harness';
import { replay } from '../support/execution-helpers';
import { built, killLeftovers, launch, MAIN, ROOT } from '../runtime/compiled-server';
import { logMessages } from '../support/json-logs';
import { writeProvidersFile } from './support/provider-app';

const INSTANCES = [
  { id: 'openai', kind: 'openai-compatible', baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-4.1-mini' },
  { id: 'ollama', kind: 'openai-compatible', baseURL: 'http://localhost:11434/v1', model: 'llama3.2', displayName: 'Local Llama', supports: { tools: false } },
  { id: 'claude', kind: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', model: 'claude-sonnet-4-5' },
  { id: 'demo', kind: 'scripted' },
];
const KEYS = { OPENAI_API_KEY: 'sk-openai-never-shown-1234', ANTHROPIC_API_KEY: 'sk-ant-never-shown-5678' };

const llm = (tools: 'native' | 'unsupported') => ({
  'output.text.stream': 'native',
  tools,
  'actions.input': tools === 'native' ? 'emulated' : 'unsupported',
  'actions.approval': 'unsupported',
  'conversation.history': 'native',
  cancellation: 'native',
  artifacts: 'unsupported',
  'output.structured': 'unsupported',
  'input.image': 'unsupported',
});

describe('PROVIDERS_CONFIG: manifests derived from kind and settings', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ env: { PROVIDERS_CONFIG: writeProvidersFile(INSTANCES), ...KEYS } });
  });
  afterAll(() => app.close());

  it('GET /v1/providers lists scripted first, then every instance in file order', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/providers');
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: any) => p.id)).toEqual(['scripted', 'openai', 'ollama', 'claude', 'demo']);
    const [scripted, openai, ollama, claude, demo] = res.body.providers;
    expect(openai).toEqual({ id: 'openai', displayName: 'OpenAI-compatible (gpt-4.1-mini)', capabilities: llm('native') });
    expect(ollama).toEqual({ id: 'ollama', displayName: 'Local Llama', capabilities: llm('unsupported') });
    expect(claude).toEqual({ id: 'claude', displayName: 'Anthropic (claude-sonnet-4-5)', capabilities: llm('native') });
    expect(demo).toEqual({ ...scripted, id: 'demo', displayName: 'Scripted (demo)' });
    expect((await api(app.baseUrl, 'GET', '/v1/providers/claude')).body).toEqual(claude);
    expect((await api(app.baseUrl, 'GET', '/v1/runtime')).body.providers).toEqual(res.body.providers);
    expect(res.text).not.toMatch(/never-shown/);
  });

  it('provider.event takes the namespace of the kind, not the instance id', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const res = await api(app.baseUrl, 'POST', '/v1/executions', {
      conversationId,
      provider: 'demo',
      input: { text: 'x' },
      config: { script: [{ type: 'providerEvent', name: 'ping' }] },
    });
    await waitForExecution(app.baseUrl, res.body.id);
    const event = (await replay(app.baseUrl, res.body.id)).find((e) => e.type === 'provider.event');
    expect(event.data).toEqual({ namespace: 'scripted', name: 'ping', payload: {} });
  });
});

/** The compiled server, started as a deployment starts it. */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write('providers startup suite skipped: dist/main.js missing (run npm run build)\n');

describeBuilt('PROVIDERS_CONFIG at start (compiled server)', () => {
  afterEach(killLeftovers);

  it('a bad file stops the start with exit 1, naming every problem in one message', () => {
    const file = writeProvidersFile([
      { id: 'openai', kind: 'openai-compatible', apiKeyEnv: 'OPENAI_API_KEY', model: 'gpt-4.1-mini' },
      { id: 'claude', kind: 'anthropic', baseURL: 'https://api.anthropic.com/v1' },
      { id: 'x', kind: 'mistral' },
    ]);
    const result = spawnSync(process.execPath, [MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1', PROVIDERS_CONFIG: file, PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 15000,
    });
    expect(result.status).toBe(1);
    const messages = logMessages(result.stdout);
    expect(messages).toContain('Invalid configuration');
    expect(messages).toContain('PORT must be an integer');
    expect(messages).toContain('providers[0] (openai): apiKeyEnv names OPENAI_API_KEY, which is not set');
    expect(messages).toContain('providers[1] (claude): model is required');
    expect(messages).toContain('providers[1] (claude): baseURL of an anthropic provider is the host without /v1');
    expect(messages).toContain('providers[2] (x): kind must be one of openai-compatible, anthropic, scripted');
  });

  it('a good file (JSON works too) serves its manifests; the keys appear nowhere in the output', async () => {
    const file = writeProvidersFile(INSTANCES, 'providers.json');
    const server = await launch({ PROVIDERS_CONFIG: file, SQLITE_PATH: `${file}.db`, LOG_LEVEL: 'debug', ...KEYS });
    const res = await api(server.baseUrl, 'GET', '/v1/providers');
    expect(res.body.providers.map((p: any) => p.id)).toEqual(['scripted', 'openai', 'ollama', 'claude', 'demo']);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(server.output()).not.toMatch(/never-shown/);
  });
});
