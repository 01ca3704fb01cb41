import { LlmKind, LlmSettings, PROVIDER_KINDS, ProviderSettings } from './provider-settings';
import { Secret } from './secret';
import { SettingsReader } from './settings-reader';

type Env = Record<string, string | undefined>;

/** Ids appear in URLs (`/v1/providers/{id}`) and in events: keep them plain. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What differs between the LLM kinds; everything else is read the same way. */
export const KIND_RULES: Record<LlmKind, { baseURL: string; maxTokens: number | null; maxTemperature: number | null; supports: string[]; label: string }> = {
  'openai-compatible': {
    baseURL: 'https://api.openai.com/v1',
    maxTokens: null,
    maxTemperature: 2,
    supports: ['tools', 'streamUsage', 'maxCompletionTokens'],
    label: 'OpenAI-compatible',
  },
  anthropic: {
    baseURL: 'https://api.anthropic.com',
    // The Messages API requires max_tokens on every request (the default: 4096).
    maxTokens: 4096,
    // @anthropic-ai/sdk 1.x sends API version 2026-10-21, which answers 400 to any temperature.
    maxTemperature: null,
    supports: ['tools'],
    label: 'Anthropic',
  },
};

/** Why a kind takes no temperature, for the messages that refuse one. */
export const NO_TEMPERATURE = 'is not accepted by anthropic (its API version 2026-10-21 removed sampling parameters)';

const LLM_KEYS = ['id', 'kind', 'displayName', 'baseURL', 'apiKeyEnv', 'model', 'defaults', 'timeouts', 'retries', 'supports'];
const KEY_HINTS = {
  apiKey: 'apiKey is not allowed: put the key in an environment variable and name it with apiKeyEnv',
  api_key: 'api_key is not allowed: put the key in an environment variable and name it with apiKeyEnv',
};

/** Validates one entry of `providers:`; problems go to `problems`, and null when it is unusable. */
export function readInstance(raw: SettingsReader, env: Env): ProviderSettings | null {
  const id = raw.string('id');
  if (!raw.has('id')) raw.problem('id is required');
  else if (id && !ID_PATTERN.test(id)) raw.problem('id must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  const kind = raw.string('kind');
  if (!raw.has('kind')) raw.problem(`kind is required (one of ${PROVIDER_KINDS.join(', ')})`);
  else if (kind && !(PROVIDER_KINDS as readonly string[]).includes(kind)) raw.problem(`kind must be one of ${PROVIDER_KINDS.join(', ')}`);
  const displayName = raw.string('displayName');
  if (kind === 'scripted') {
    raw.onlyKeys(['id', 'kind', 'displayName'], KEY_HINTS);
    return id ? { id, kind, displayName: displayName ?? `Scripted (${id})` } : null;
  }
  if (kind !== 'openai-compatible' && kind !== 'anthropic') return null;
  raw.onlyKeys(LLM_KEYS, KEY_HINTS);
  const rules = KIND_RULES[kind];
  const model = raw.string('model');
  if (!raw.has('model')) raw.problem('model is required');
  const baseURL = readBaseURL(raw, kind);
  const { apiKeyEnv, apiKey } = readApiKey(raw, env);

  const defaults = raw.nested('defaults');
  defaults.onlyKeys(['temperature', 'maxTokens', 'system']);
  const timeouts = raw.nested('timeouts');
  timeouts.onlyKeys(['requestMs', 'idleMs']);
  const retries = raw.nested('retries');
  retries.onlyKeys(['max', 'initialDelayMs', 'maxDelayMs']);
  const supports = raw.nested('supports');
  supports.onlyKeys(rules.supports);

  const settings: LlmSettings = {
    id: id ?? '',
    kind,
    displayName: displayName ?? `${rules.label} (${model ?? 'no model'})`,
    baseURL,
    apiKeyEnv,
    apiKey,
    model: model ?? '',
    defaults: {
      temperature: readTemperature(defaults, rules.maxTemperature),
      maxTokens: defaults.has('maxTokens') ? defaults.integer('maxTokens', 0, 1, 1_000_000) : rules.maxTokens,
      system: defaults.string('system'),
    },
    // The SDKs' own default for a whole request is 10 minutes. Idle is generous because some
    // reasoning models send nothing while they think.
    timeouts: { requestMs: timeouts.integer('requestMs', 600_000, 1, 3_600_000), idleMs: timeouts.integer('idleMs', 120_000, 1, 3_600_000) },
    retries: {
      max: retries.integer('max', 2, 0, 10),
      initialDelayMs: retries.integer('initialDelayMs', 500, 0, 60_000),
      maxDelayMs: retries.integer('maxDelayMs', 30_000, 0, 600_000),
    },
    supports: {
      tools: supports.boolean('tools', true),
      streamUsage: supports.boolean('streamUsage', true),
      maxCompletionTokens: supports.boolean('maxCompletionTokens', false),
    },
  };
  return id && model ? settings : null;
}

function readBaseURL(raw: SettingsReader, kind: LlmKind): string {
  const value = raw.string('baseURL', KIND_RULES[kind].baseURL)!;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    raw.problem('baseURL must be an absolute http(s) URL');
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') raw.problem('baseURL must be an absolute http(s) URL');
  // Never echo the URL here: it is the part that carries the credentials.
  if (url.username || url.password) raw.problem('baseURL must not carry credentials: name the key with apiKeyEnv');
  if (kind === 'anthropic' && /\/v1\/?$/.test(url.pathname)) {
    raw.problem('baseURL of an anthropic provider is the host without /v1 (the SDK adds /v1/messages)');
  }
  return value;
}

function readApiKey(raw: SettingsReader, env: Env): { apiKeyEnv: string | null; apiKey: Secret | null } {
  const name = raw.string('apiKeyEnv');
  if (name === null) return { apiKeyEnv: null, apiKey: null };
  if (!ENV_NAME_PATTERN.test(name)) {
    raw.problem('apiKeyEnv must be the name of an environment variable (letters, digits and "_"), not the key itself');
    return { apiKeyEnv: null, apiKey: null };
  }
  const value = env[name];
  if (value === undefined || value === '') {
    // Someone may have pasted the key itself here (an Azure key is plain hex): name the variable
    // only when it looks like a conventional variable name.
    const shown = /^[A-Z_][A-Z0-9_]{0,63}$/.test(name) ? name : 'a variable';
    raw.problem(`apiKeyEnv names ${shown}, which is not set`);
    return { apiKeyEnv: name, apiKey: null };
  }
  return { apiKeyEnv: name, apiKey: new Secret(value) };
}

function readTemperature(defaults: SettingsReader, max: number | null): number | null {
  if (max !== null) return defaults.number('temperature', 0, max);
  if (defaults.has('temperature')) defaults.problem(`temperature ${NO_TEMPERATURE}`);
  return null;
}
