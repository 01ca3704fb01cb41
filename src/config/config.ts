import { AuthConfig, readAuthConfig } from '../auth/auth-config';
import { ProviderSettings } from '../providers/config/provider-settings';
import { readProvidersConfig } from '../providers/config/providers-file';

/** Typed configuration read from the environment once at start (binding §12). */
export interface Config {
  host: string;
  port: number;
  eventStore: 'sqlite' | 'eventstoredb';
  sqlitePath: string;
  /** The read models' own SQLite file (disposable: deleting it rebuilds them from the events). */
  readModelPath: string;
  eventStoreDbConnectionString: string | null;
  bodyLimitBytes: number;
  /** How often an idle SSE stream gets a `: keep-alive` comment; the binding caps it at 15 s. */
  sseKeepAliveMs: number;
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** API_KEYS and OIDC_*; auth is on when either is set. */
  auth: AuthConfig;
  /** How long a run's output waits for a store that refuses writes before the run is ended. */
  storeRetryMs: number;
  /** How many earlier completed executions a provider offering `conversation.history` receives. */
  historyMaxTurns: number;
  /** PROVIDERS_CONFIG: the YAML file of provider instances, or null (only `scripted`). */
  providersConfigPath: string | null;
  /** Its validated instances, keys resolved from the variables they name (printed redacted). */
  providers: ProviderSettings[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    return fallback;
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T, problems: string[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
    return fallback;
  }
  return raw as T;
}

/** Beside the events file (`data/runledger.db` → `data/runledger.read-models.db`), so two stores never share one. */
function defaultReadModelPath(eventStore: Config['eventStore'], sqlitePath: string): string {
  if (eventStore === 'eventstoredb') return './data/read-models.db';
  return `${sqlitePath.replace(/\.(db|sqlite3?)$/, '')}.read-models.db`;
}

/** Reads and validates the whole configuration, reporting every problem at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const eventStore = oneOf(env, 'EVENT_STORE', ['sqlite', 'eventstoredb'] as const, 'sqlite', problems);
  const connection = env.EVENTSTOREDB_CONNECTION_STRING || null;
  if (eventStore === 'eventstoredb') {
    if (!connection) problems.push('EVENTSTOREDB_CONNECTION_STRING is required when EVENT_STORE=eventstoredb');
    else if (!/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//.test(connection)) {
      problems.push('EVENTSTOREDB_CONNECTION_STRING must start with esdb:// (or esdb+discover://, kurrentdb://)');
    }
  }
  const host = env.HOST || '127.0.0.1';
  const sqlitePath = env.SQLITE_PATH || './data/runledger.db';
  const config: Config = {
    host,
    port: integer(env, 'PORT', 3000, 0, 65535, problems),
    eventStore,
    sqlitePath,
    readModelPath: env.READ_MODEL_PATH || defaultReadModelPath(eventStore, sqlitePath),
    eventStoreDbConnectionString: connection,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024, problems),
    sseKeepAliveMs: integer(env, 'SSE_KEEPALIVE_MS', 15000, 10, 15000, problems),
    logLevel: oneOf(env, 'LOG_LEVEL', ['silent', 'error', 'warn', 'info', 'debug'] as const, 'info', problems),
    auth: readAuthConfig(env, problems),
    storeRetryMs: integer(env, 'STORE_RETRY_MS', 30_000, 0, 3_600_000, problems),
    historyMaxTurns: integer(env, 'HISTORY_MAX_TURNS', 100, 0, 10_000, problems),
    ...readProvidersConfig(env, problems),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

export const CONFIG = Symbol('CONFIG');
