import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ConfigError, loadConfig } from '../../config/config';
import { LlmSettings } from './provider-settings';
import { readProvidersConfig } from './providers-file';

const file = (name: string, text: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'providers-spec-')), name);
  writeFileSync(path, text);
  return path;
};

const read = (text: string, env: Record<string, string> = {}, name = 'providers.yaml') => {
  const problems: string[] = [];
  const result = readProvidersConfig({ PROVIDERS_CONFIG: file(name, text), ...env }, problems);
  return { ...result, problems };
};

describe('PROVIDERS_CONFIG', () => {
  it('is optional: without it only the built-in scripted exists', () => {
    const problems: string[] = [];
    expect(readProvidersConfig({}, problems)).toEqual({ providersConfigPath: null, providers: [] });
    expect(problems).toEqual([]);
  });

  it('reads the issue example with defaults filled in; the key stays redacted when printed', () => {
    const { providers, problems } = read(
      `providers:
  - id: openai
    kind: openai-compatible
    baseURL: https://api.openai.com/v1
    apiKeyEnv: OPENAI_API_KEY
    model: gpt-4.1-mini
  - id: claude
    kind: anthropic
    apiKeyEnv: ANTHROPIC_API_KEY
    model: claude-sonnet-4-5
`,
      { OPENAI_API_KEY: 'sk-one', ANTHROPIC_API_KEY: 'sk-two' },
    );
    expect(problems).toEqual([]);
    const [openai, claude] = providers as LlmSettings[];
    expect(openai).toMatchObject({
      id: 'openai',
      kind: 'openai-compatible',
      model: 'gpt-4.1-mini',
      apiKeyEnv: 'OPENAI_API_KEY',
      defaults: { temperature: null, maxTokens: null, system: null },
      timeouts: { requestMs: 600_000, idleMs: 120_000 },
      retries: { max: 2, initialDelayMs: 500, maxDelayMs: 30_000 },
      supports: { tools: true, streamUsage: true, maxCompletionTokens: false },
    });
    expect(claude).toMatchObject({ baseURL: 'https://api.anthropic.com', defaults: { maxTokens: 4096 } });
    expect(openai.apiKey!.reveal()).toBe('sk-one');
    const printed = [JSON.stringify(providers), inspect(providers, { depth: 9 }), `${String(openai.apiKey)}`].join('\n');
    expect(printed).not.toContain('sk-one');
    expect(printed).not.toContain('sk-two');
  });

  it('JSON is YAML too', () => {
    const json = JSON.stringify({ providers: [{ id: 'local', kind: 'openai-compatible', baseURL: 'http://localhost:11434/v1', model: 'llama3.2' }] });
    const { providers, problems } = read(json, {}, 'providers.json');
    expect(problems).toEqual([]);
    expect(providers).toMatchObject([{ id: 'local', apiKey: null, apiKeyEnv: null }]);
  });

  it('names every problem of the file at once', () => {
    const { problems } = read(
      `providers:
  - id: scripted
    kind: scripted
  - id: a
    kind: openai-compatible
    apiKey: sk-pasted-here
    apiKeyEnv: MISSING_KEY
    defaults: { temperature: 5, maxTokens: 0 }
    timeouts: { idleMs: -1 }
    supports: { tools: "yes", vision: true }
  - id: a
    kind: anthropic
    baseURL: https://api.anthropic.com/v1
    model: claude
    defaults: { temperature: 0.5 }
    supports: { streamUsage: false }
  - kind: gemini
  - id: bad id
    kind: scripted
    model: x
  - just a string
extra: true
`,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('providers[0] (scripted): id "scripted" is the built-in provider\'s'),
        expect.stringContaining('providers[1] (a): apiKey is not allowed: put the key in an environment variable'),
        expect.stringContaining('providers[1] (a): model is required'),
        expect.stringContaining('providers[1] (a): apiKeyEnv names MISSING_KEY, which is not set'),
        expect.stringContaining('providers[1] (a): defaults.temperature must be a number from 0 to 2'),
        expect.stringContaining('providers[1] (a): defaults.maxTokens must be an integer from 1 to 1000000'),
        expect.stringContaining('providers[1] (a): timeouts.idleMs must be an integer from 1 to 3600000'),
        expect.stringContaining('providers[1] (a): supports.tools must be true or false'),
        expect.stringContaining('providers[1] (a): supports.vision is not a known setting'),
        expect.stringContaining('providers[2] (a): baseURL of an anthropic provider is the host without /v1'),
        expect.stringContaining('providers[2] (a): defaults.temperature is not accepted by anthropic'),
        expect.stringContaining('providers[2] (a): supports.streamUsage is not a known setting'),
        expect.stringContaining('providers[3]: id is required'),
        expect.stringContaining('providers[3]: kind must be one of openai-compatible, anthropic, scripted'),
        expect.stringContaining('providers[4] (bad id): id must be 1-64 letters'),
        expect.stringContaining('providers[4] (bad id): model is not a known setting'),
        expect.stringContaining('providers[5]: must be a mapping'),
        expect.stringContaining('extra is not a known setting'),
      ]),
    );
    expect(problems.join('\n')).not.toContain('sk-pasted-here');
  });

  it('a second instance with an id already used is a problem', () => {
    const { problems } = read(`providers:
  - { id: x, kind: scripted }
  - { id: x, kind: openai-compatible, model: m }
`);
    expect(problems).toEqual([expect.stringContaining('providers[1] (x): id "x" is used by an earlier provider')]);
  });

  it('credentials in the baseURL and a key pasted into apiKeyEnv are refused without echoing them', () => {
    const { problems } = read(`providers:
  - { id: x, kind: openai-compatible, model: m, baseURL: "https://user:hunter2@example.com/v1", apiKeyEnv: "sk-abc-123" }
  - { id: y, kind: openai-compatible, model: m, apiKeyEnv: "a1b2c3d4e5f6a7b8c9d0" }
`);
    expect(problems).toEqual([
      expect.stringContaining('baseURL must not carry credentials'),
      expect.stringContaining('apiKeyEnv must be the name of an environment variable'),
      expect.stringContaining('apiKeyEnv names a variable, which is not set'),
    ]);
    expect(problems.join('\n')).not.toMatch(/hunter2|sk-abc-123|a1b2c3d4e5f6a7b8c9d0/);
  });

  it('an unreadable file or bad YAML is one problem naming the file', () => {
    const problems: string[] = [];
    readProvidersConfig({ PROVIDERS_CONFIG: '/no/such/providers.yaml' }, problems);
    expect(problems).toEqual(['PROVIDERS_CONFIG (/no/such/providers.yaml) cannot be read (ENOENT)']);
    expect(read('providers: [ {id: x\n').problems).toEqual([expect.stringMatching(/is not valid YAML: /)]);
    expect(read('- a list\n').problems).toEqual([expect.stringContaining('must be a mapping with a "providers" list')]);
  });

  it('loadConfig reports provider problems with the rest, in one ConfigError', () => {
    const path = file('p.yaml', 'providers:\n  - { id: x, kind: anthropic }\n');
    let error: unknown;
    try {
      loadConfig({ PROVIDERS_CONFIG: path, PORT: 'eighty' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([expect.stringContaining('PORT must be'), expect.stringContaining('(x): model is required')]);
  });
});
