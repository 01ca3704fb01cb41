import { STANDARD_RETRY_SCHEDULE_MS } from './domain/retry-schedule';

/** WEBHOOK_* (docs/configuration.md): how endpoints are checked and events delivered. */
export interface WebhookSettings {
  /** WEBHOOK_ALLOW_HTTP=true: plain `http://` URLs are accepted (development, tests). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE=true: URLs whose host is loopback, private or link-local are accepted and connected to. */
  allowPrivate: boolean;
  /** WEBHOOK_TIMEOUT_MS: an attempt not answered with its status within this is a failed attempt. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_SCHEDULE_MS: the delay before each attempt, comma-separated; its length is the number of attempts. */
  retryScheduleMs: number[];
  /** WEBHOOK_MAX_PER_TENANT: endpoints one tenant may have (deleted ones do not count). */
  maxPerTenant: number;
  /** WEBHOOK_MAX_IN_FLIGHT: executions whose events one endpoint's deliverer sends in parallel. */
  maxInFlight: number;
  /** WEBHOOK_MAX_QUEUED: events one endpoint's deliverer holds read but unsettled before it stops reading. */
  maxQueued: number;
  /** WEBHOOK_REPLAY_MAX_EVENTS: matching events one replay may send again. */
  replayMaxEvents: number;
}

type Env = Record<string, string | undefined>;
type Integer = (env: Env, name: string, fallback: number, min: number, max: number, problems: string[]) => number;

const DAY_MS = 86_400_000;

function flag(env: Env, name: string, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  problems.push(`${name} must be true or false (got "${raw}")`);
  return false;
}

function schedule(env: Env, problems: string[]): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE_MS;
  if (raw === undefined || raw.trim() === '') return [...STANDARD_RETRY_SCHEDULE_MS];
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length > 20 || entries.some((entry) => !/^\d+$/.test(entry) || Number(entry) > 7 * DAY_MS)) {
    problems.push(`WEBHOOK_RETRY_SCHEDULE_MS must be 1 to 20 comma-separated delays in ms, each at most ${7 * DAY_MS} (got "${raw}")`);
    return [...STANDARD_RETRY_SCHEDULE_MS];
  }
  return entries.map(Number);
}

export function readWebhookSettings(env: Env, integer: Integer, problems: string[]): WebhookSettings {
  return {
    allowHttp: flag(env, 'WEBHOOK_ALLOW_HTTP', problems),
    allowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', problems),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 300_000, problems),
    retryScheduleMs: schedule(env, problems),
    maxPerTenant: integer(env, 'WEBHOOK_MAX_PER_TENANT', 20, 1, 1_000, problems),
    maxInFlight: integer(env, 'WEBHOOK_MAX_IN_FLIGHT', 8, 1, 256, problems),
    maxQueued: integer(env, 'WEBHOOK_MAX_QUEUED', 1_000, 10, 100_000, problems),
    replayMaxEvents: integer(env, 'WEBHOOK_REPLAY_MAX_EVENTS', 10_000, 1, 1_000_000, problems),
  };
}
