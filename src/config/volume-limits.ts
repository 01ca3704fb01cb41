/**
 * How much one tenant's requests may make the service store, run and answer. Each is a setting
 * (docs/operations.md#limits-security-headers-and-cors); every one is answered in the error envelope and appends nothing.
 */
export interface VolumeLimits {
  /** MAX_INPUT_TEXT_BYTES: UTF-8 bytes of `input.text`. */
  maxInputTextBytes: number;
  /** MAX_CONFIG_BYTES: UTF-8 bytes of an execution's `config` as JSON. */
  maxConfigBytes: number;
  /** MAX_EVENT_BYTES: UTF-8 bytes of one event's data as JSON. */
  maxEventBytes: number;
  /** MAX_EVENTS_PER_EXECUTION: events in one execution's stream, its end included. */
  maxEventsPerExecution: number;
  /** MAX_RUNNING_PER_TENANT: executions one tenant may have running on this instance at once. */
  maxRunningPerTenant: number;
  /** MAX_PAGE_BYTES: a JSON page of events (replay, feed) or one SSE backlog chunk, at least one event. */
  maxPageBytes: number;
}

type Env = Record<string, string | undefined>;
type Integer = (env: Env, name: string, fallback: number, min: number, max: number, problems: string[]) => number;

const KiB = 1024;
const MiB = 1024 * KiB;

export const DEFAULT_VOLUME_LIMITS: VolumeLimits = {
  maxInputTextBytes: 256 * KiB,
  maxConfigBytes: 256 * KiB,
  maxEventBytes: 1 * MiB,
  maxEventsPerExecution: 100_000,
  maxRunningPerTenant: 100,
  maxPageBytes: 4 * MiB,
};

export function readVolumeLimits(env: Env, integer: Integer, problems: string[]): VolumeLimits {
  const d = DEFAULT_VOLUME_LIMITS;
  const limits: VolumeLimits = {
    maxInputTextBytes: integer(env, 'MAX_INPUT_TEXT_BYTES', d.maxInputTextBytes, 1, 64 * MiB, problems),
    maxConfigBytes: integer(env, 'MAX_CONFIG_BYTES', d.maxConfigBytes, 2, 64 * MiB, problems),
    maxEventBytes: integer(env, 'MAX_EVENT_BYTES', d.maxEventBytes, 1 * KiB, 64 * MiB, problems),
    maxEventsPerExecution: integer(env, 'MAX_EVENTS_PER_EXECUTION', d.maxEventsPerExecution, 10, 100_000_000, problems),
    maxRunningPerTenant: integer(env, 'MAX_RUNNING_PER_TENANT', d.maxRunningPerTenant, 1, 100_000, problems),
    maxPageBytes: integer(env, 'MAX_PAGE_BYTES', d.maxPageBytes, 1 * KiB, 4 * MiB, problems),
  };
  // run.queued carries both: it must fit in one event.
  if (limits.maxInputTextBytes + limits.maxConfigBytes + 4 * KiB > limits.maxEventBytes) {
    problems.push('MAX_EVENT_BYTES must exceed MAX_INPUT_TEXT_BYTES + MAX_CONFIG_BYTES by 4 KiB, so that run.queued always fits in one event');
  }
  return limits;
}
