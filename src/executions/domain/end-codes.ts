/**
 * Every `run.failed` code the runtime and its providers record (docs/api.md#events): search filters
 * by them and /metrics labels ended runs with them, so the label's cardinality stays this list.
 */
export const RUN_FAILURE_CODES = [
  'PROVIDER_ERROR',
  'ACTION_DENIED',
  'RUNTIME_INTERRUPTED',
  'LIMIT_EXCEEDED',
  'DEADLINE_EXCEEDED',
  'ACTION_EXPIRED',
  'BUDGET_EXCEEDED',
] as const;

export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(RUN_FAILURE_CODES);

/** A recorded code as a bounded label: a code no release knows (a foreign writer's) counts as OTHER. */
export const failureCodeLabel = (code: string): RunFailureCode | 'OTHER' => (KNOWN.has(code) ? (code as RunFailureCode) : 'OTHER');
