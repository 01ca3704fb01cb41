import { readVolumeLimits, VolumeLimits } from './volume-limits';
import { AuthConfig, authEnabled, readAuthConfig } from '../auth/auth-config';
import { ProviderSettings } from '../providers/config/provider-settings';
import { readProvidersConfig } from '../providers/config/providers-file';
import { isLoopbackHost } from './loopback-host';
import { TrustProxy, readTrustProxy } from './trust-proxy';
import { readTenantBudgets } from './tenant-budgets';
import type { Clock } from '../common/clock';
import { WebhookSettings, readWebhookSettings } from '../webhooks/webhook-settings';

/** Typed configuration read from the environment once at start (docs/configuration.md). */
export interface Config {
  host: string;
  port: number;
  eventStore: 'sqlite' | 'eventstoredb' | 'postgres';
  sqlitePath: string;
  /** SQLITE_WRITER: where SQLite commits run, a writer thread (the default) or the event loop. */
  sqliteWriter: 'thread' | 'inline';
  /** POSTGRES_WRITER: where PostgreSQL appends run, a writer thread (the default) or the event loop. */
  postgresWriter: 'thread' | 'inline';
  /** READ_MODEL_WRITER: where the projections' transactions run, the projector thread (the default) or the event loop. */
  readModelWriter: 'thread' | 'inline';
  /** The read models' own SQLite file (disposable: deleting it rebuilds them from the events). */
  readModelPath: string;
  eventStoreDbConnectionString: string | null;
  /** DATABASE_URL: the PostgreSQL database of EVENT_STORE=postgres (postgres://user:pass@host:5432/db). */
  databaseUrl: string | null;
  bodyLimitBytes: number;
  /** How often an idle SSE stream gets a `: keep-alive` comment; the binding caps it at 15 s. */
  sseKeepAliveMs: number;
  logLevel: 'silent' | 'error' | 'warn' | 'info' | 'debug';
  /** API_KEYS (or API_KEYS_FILE) and OIDC_*; auth is on when either is set. */
  auth: AuthConfig;
  /** ALLOW_UNAUTHENTICATED=true: serve a non-loopback HOST without authentication, on purpose. */
  allowUnauthenticated: boolean;
  /** AUTH_FAILURES_PER_MINUTE: failed authentications per client address per minute before 429; 0 = no limit. */
  authFailuresPerMinute: number;
  /** TRUST_PROXY: Fastify's `trustProxy`, so that a client's address comes from X-Forwarded-For. */
  trustProxy: TrustProxy;
  /** SCRIPTED_PROVIDER: whether the built-in `scripted` provider is offered. */
  scriptedProvider: 'enabled' | 'disabled';
  /** Input, config, event, page and concurrency bounds (MAX_*). */
  limits: VolumeLimits;
  /** How long a run's output waits for a store that refuses writes before the run is ended. */
  storeRetryMs: number;
  /** EXECUTION_TIMEOUT_MS: the `timeoutMs` of an execution started without one, or null (none). */
  executionTimeoutMs: number | null;
  /** How many earlier completed executions a provider offering `conversation.history` receives. */
  historyMaxTurns: number;
  /** How often this instance tells a shared store (PostgreSQL) it is alive. */
  heartbeatIntervalMs: number;
  /** An instance not heard of for this long is gone: another instance ends its runs. */
  heartbeatLapseMs: number;
  /** PROVIDERS_CONFIG: the YAML file of provider instances, or null (only `scripted`). */
  providersConfigPath: string | null;
  /** Its validated instances, keys resolved from the variables they name (printed redacted). */
  providers: ProviderSettings[];
  /** RATE_LIMIT_PER_MINUTE: requests per tenant per minute, or null (no limit). */
  rateLimitPerMinute: number | null;
  /** SSE_MAX_STREAMS_PER_TENANT: open event streams (both SSE routes together) per tenant. */
  sseMaxStreamsPerTenant: number;
  /** CORS_ORIGINS: the origins browsers may call from (`*` for any), or null (CORS off). */
  corsOrigins: string[] | null;
  /** REQUEST_TIMEOUT_MS: a request's headers and body must have arrived within this, or it is answered 408 and closed. */
  requestTimeoutMs: number;
  /** MAX_CONNECTIONS: open TCP connections this instance accepts; more are closed at once. */
  maxConnections: number;
  /** MAX_JSON_DEPTH: how deeply a JSON request body may nest arrays and objects (the body itself is level 1). */
  maxJsonDepth: number;
  /** TENANT_TOKEN_BUDGETS: per tenant, the tokens its executions may spend per calendar month (UTC); a tenant not named has none. */
  tenantTokenBudgets: ReadonlyMap<string, number>;
  /** The clock of month-bound decisions; the system's unless a test passes its own (docs/api.md#usage-and-budgets). */
  clock?: Clock;
  /** WEBHOOK_*: endpoint rules and delivery (docs/webhooks.md). */
  webhooks: WebhookSettings;
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
  if (eventStore !== 'sqlite') return './data/read-models.db';
  return `${sqlitePath.replace(/\.(db|sqlite3?)$/, '')}.read-models.db`;
}

/**
 * `CORS_ORIGINS=https://app.example.com,http://localhost:5173`: each an origin (scheme, host and
 * optional port, nothing after), or `*` for any; unset or empty turns CORS off.
 */
function corsOrigins(env: Env, problems: string[]): string[] | null {
  const raw = env.CORS_ORIGINS;
  if (raw === undefined || raw.trim() === '') return null;
  const origins = raw.split(',').map((entry) => entry.trim());
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin) {
      problems.push(
        `CORS_ORIGINS entry "${origin}" must be * or an origin such as https://app.example.com (http or https, host, optional port, no path or trailing slash)`,
      );
    }
  }
  return origins;
}

/** Reads and validates the whole configuration, reporting every problem at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const eventStore = oneOf(env, 'EVENT_STORE', ['sqlite', 'eventstoredb', 'postgres'] as const, 'sqlite', problems);
  const databaseUrl = env.DATABASE_URL || null;
  if (eventStore === 'postgres') {
    if (!databaseUrl) problems.push('DATABASE_URL is required when EVENT_STORE=postgres');
    else if (!/^postgres(ql)?:\/\/./.test(databaseUrl)) problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }
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
    sqliteWriter: oneOf(env, 'SQLITE_WRITER', ['thread', 'inline'] as const, 'thread', problems),
    postgresWriter: oneOf(env, 'POSTGRES_WRITER', ['thread', 'inline'] as const, 'thread', problems),
    readModelWriter: oneOf(env, 'READ_MODEL_WRITER', ['thread', 'inline'] as const, 'thread', problems),
    readModelPath: env.READ_MODEL_PATH || defaultReadModelPath(eventStore, sqlitePath),
    eventStoreDbConnectionString: connection,
    databaseUrl,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 1024 * 1024 * 1024, problems),
    sseKeepAliveMs: integer(env, 'SSE_KEEPALIVE_MS', 15000, 10, 15000, problems),
    logLevel: oneOf(env, 'LOG_LEVEL', ['silent', 'error', 'warn', 'info', 'debug'] as const, 'info', problems),
    auth: readAuthConfig(env, problems),
    storeRetryMs: integer(env, 'STORE_RETRY_MS', 30_000, 0, 3_600_000, problems),
    executionTimeoutMs: env.EXECUTION_TIMEOUT_MS ? integer(env, 'EXECUTION_TIMEOUT_MS', 0, 1, 604_800_000, problems) : null,
    historyMaxTurns: integer(env, 'HISTORY_MAX_TURNS', 100, 0, 10_000, problems),
    heartbeatIntervalMs: integer(env, 'HEARTBEAT_INTERVAL_MS', 2_000, 50, 60_000, problems),
    heartbeatLapseMs: integer(env, 'HEARTBEAT_LAPSE_MS', 10_000, 200, 600_000, problems),
    ...readProvidersConfig(env, problems),
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE ? integer(env, 'RATE_LIMIT_PER_MINUTE', 0, 1, 1_000_000, problems) : null,
    sseMaxStreamsPerTenant: integer(env, 'SSE_MAX_STREAMS_PER_TENANT', 100, 1, 100_000, problems),
    corsOrigins: corsOrigins(env, problems),
    allowUnauthenticated: oneOf(env, 'ALLOW_UNAUTHENTICATED', ['true', 'false'] as const, 'false', problems) === 'true',
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 20, 0, 1_000_000, problems),
    trustProxy: readTrustProxy(env.TRUST_PROXY, problems),
    scriptedProvider: oneOf(env, 'SCRIPTED_PROVIDER', ['enabled', 'disabled'] as const, 'enabled', problems),
    limits: readVolumeLimits(env, integer, problems),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000, problems),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 10_000, 1, 1_000_000, problems),
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH', 64, 8, 1_000, problems),
    tenantTokenBudgets: readTenantBudgets(env.TENANT_TOKEN_BUDGETS, problems),
    webhooks: readWebhookSettings(env, integer, problems),
  };
  for (const instance of config.providers) {
    if (config.scriptedProvider === 'disabled' && instance.kind === 'scripted') {
      problems.push(`PROVIDERS_CONFIG instance "${instance.id}" is of kind scripted, which SCRIPTED_PROVIDER=disabled turns off`);
    }
  }
  // Reachable from a network with no key asked: every caller would be tenant `default`.
  if (!authEnabled(config.auth) && !isLoopbackHost(host) && !config.allowUnauthenticated) {
    problems.push(
      `HOST=${host} is reachable from other machines but authentication is off: set API_KEYS, API_KEYS_FILE or OIDC_ISSUER, or ALLOW_UNAUTHENTICATED=true to serve without authentication on purpose`,
    );
  }
  if (config.heartbeatLapseMs < 3 * config.heartbeatIntervalMs) {
    problems.push("HEARTBEAT_LAPSE_MS must be at least 3 × HEARTBEAT_INTERVAL_MS, so one late heartbeat never ends a live instance's runs");
  }
  if (env.INSTANCE_ID !== undefined && !/^[A-Za-z0-9._-]{1,128}$/.test(env.INSTANCE_ID)) {
    problems.push('INSTANCE_ID must be 1 to 128 letters, digits, ".", "_" or "-"');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

export const CONFIG = Symbol('CONFIG');
