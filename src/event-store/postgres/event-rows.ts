import { nowIso } from '../../common/clock';
import { newId } from '../../common/ids';
import type { ExpectedRevision, NewEvent } from '../event-store';
import type { EventRow } from './group-commit';
import { MAX_EVENTS_PER_TRANSACTION } from './position';
import { jsonOf, keptOrFreshJson } from '../../common/json-text';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// NUL is not allowed in PostgreSQL text, and lone surrogates would silently become U+FFFD.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkText(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
  if (UNSTORABLE.test(value)) throw new RangeError(`${what} contains a NUL character or a lone surrogate`);
  return value;
}

/**
 * The rows of one append, serialised and checked before it joins a group commit: whatever
 * PostgreSQL would refuse (a NUL in a text column, an id that is not a UUID, an append larger than
 * a transaction may hold) fails this append alone, here, instead of the whole batch.
 */
export function toRows(streamId: string, events: NewEvent[], expected: ExpectedRevision): { rows: EventRow[]; bytes: number } {
  if (events.length === 0) throw new Error('append needs at least one event');
  if (events.length > MAX_EVENTS_PER_TRANSACTION) {
    throw new RangeError(`an append holds at most ${MAX_EVENTS_PER_TRANSACTION} events (got ${events.length})`);
  }
  if (expected !== 'any' && expected !== 'no_stream' && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new RangeError(`invalid expected revision ${String(expected)}`);
  }
  checkText(streamId, 'streamId');
  let now: string | undefined;
  let bytes = 0;
  const rows = events.map((e) => {
    const row: EventRow = {
      id: e.id ?? newId(),
      type: checkText(e.type, 'type'),
      data: jsonOf(e.data),
      metadata: keptOrFreshJson(e.metadata),
      tenantId: checkText(e.metadata.tenantId, 'metadata.tenantId'),
      schemaVersion: e.metadata.schemaVersion,
      occurredAt: checkText(e.occurredAt ?? (now ??= nowIso()), 'occurredAt'),
    };
    if (!UUID.test(row.id)) throw new RangeError(`event id ${row.id} is not a UUID`);
    if (!Number.isInteger(row.schemaVersion) || row.schemaVersion < 0 || row.schemaVersion > 2 ** 31 - 1) {
      throw new RangeError(`invalid schemaVersion ${String(row.schemaVersion)}`);
    }
    if (typeof row.data !== 'string') throw new TypeError('event data must be a JSON object');
    bytes += row.data.length + row.metadata.length;
    return row;
  });
  return { rows, bytes };
}
