import { StoredEvent } from './event-store';
import { StoredRow } from './stored-row';

/**
 * Schema evolution (rule 5): every stored event carries `metadata.schemaVersion`, and the
 * upcasters below turn an older shape into the current one on every read path (folds,
 * projections, replay, SSE, the feed), so a schema change is: add an upcaster, bump the
 * version, rebuild. Stored events are never rewritten.
 */
export interface Upcaster {
  /** The version this step reads; it returns the event at `from + 1`. */
  from: number;
  /** Streams it applies to (by id prefix). */
  streamPrefix: string;
  /** The event types it may change; any other event is passed by without calling it (stored-row.ts: a default need not read its data). */
  types: readonly string[];
  upcast(type: string, data: Record<string, unknown>): Record<string, unknown>;
}

/** The version new execution events are written at. */
export const EXECUTION_SCHEMA_VERSION = 2;

const UPCASTERS: readonly Upcaster[] = [
  {
    // Version 1 let `run.completed` leave out `usage`; version 2 always has it (null when unknown).
    from: 1,
    streamPrefix: 'execution-',
    types: ['run.completed'],
    upcast: (type, data) => (type === 'run.completed' && !('usage' in data) ? { ...data, usage: null } : data),
  },
];

/**
 * Additive fields with a null default, filled in at any version: version-2 `run.failed` and
 * `run.cancelled` written before every terminal event carried `usage` lack it
 * (docs/api.md#usage-and-budgets). A field that only appears needs no version of its own.
 */
const DEFAULTS: readonly Omit<Upcaster, 'from'>[] = [
  {
    streamPrefix: 'execution-',
    types: ['run.failed', 'run.cancelled'],
    upcast: (type, data) => ((type === 'run.failed' || type === 'run.cancelled') && !('usage' in data) ? { ...data, usage: null } : data),
  },
];

/** The event in its current shape; events already current come back as they are. */
export function upcast(event: StoredEvent): StoredEvent {
  let current = event;
  for (const step of DEFAULTS) {
    if (!step.types.includes(current.type) || !current.streamId.startsWith(step.streamPrefix)) continue;
    const data = step.upcast(current.type, current.data);
    if (data !== current.data) current = { ...current, data };
  }
  for (const step of UPCASTERS) {
    if (StoredRow.schemaVersionOf(current) !== step.from || !current.streamId.startsWith(step.streamPrefix)) continue;
    current = {
      ...current,
      data: step.types.includes(current.type) ? step.upcast(current.type, current.data) : current.data,
      metadata: { ...current.metadata, schemaVersion: step.from + 1 },
    };
  }
  return current;
}
