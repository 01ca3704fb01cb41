import type { Pool } from 'pg';
import type { AllFilter, StoredEvent } from '../event-store';
import { frontierSql } from './position';
import { EVENTS_TABLE } from './schema';
import { StoredRow } from '../stored-row';

/** Rows per read of a subscription. */
export const READ_CHUNK = 1000;

export interface EventRowOut {
  position: string;
  event_id: string;
  stream_id: string;
  revision: string;
  type: string;
  data: string;
  metadata: string;
  occurred_at: string;
  schema_version: number;
}

// data and metadata come back as their stored text (no driver-side parsing), parsed here once.
// The statements every subscriber runs on every wake-up are named, so each connection plans them
// once: planning READ_ALL_CHUNK cost PostgreSQL more than running it (bench:instances --statements).
export const EVENT_COLUMNS = 'position, event_id, stream_id, revision, type, data::text AS data, metadata::text AS metadata, occurred_at, schema_version';

export function toStored(row: EventRowOut): StoredEvent {
  return new StoredRow(
    row.event_id,
    row.stream_id,
    Number(row.revision),
    Number(row.position),
    row.type,
    row.data,
    row.metadata,
    row.occurred_at,
    row.schema_version,
  );
}

/** A read of $all below the frontier, with what a reader needs to know about the frontier itself. */
export interface AllChunk {
  events: StoredEvent[];
  /** The last position below the frontier, 0 if none: everything up to it has been read or skipped. */
  stableHead: number;
  /** Some events are visible above the frontier: an older transaction still holds them back. */
  held: boolean;
}

/**
 * The statement of `readAllChunk`, exported so a test can check its plan: $1 the store's base, $2
 * the cursor, $3 a tenant, $4 stream prefixes, $5 event types (each NULL for any), $6 the limit.
 */
export const READ_ALL_CHUNK = `WITH f AS MATERIALIZED (
       SELECT x.frontier,
         (SELECT max(position) FROM ${EVENTS_TABLE} WHERE position < x.frontier) AS stable_head,
         -- min(), not EXISTS: the planner cannot estimate the frontier, and for EXISTS it picks
         -- a sequential scan, which reads the whole table whenever nothing is held.
         (SELECT min(position) FROM ${EVENTS_TABLE} WHERE position >= x.frontier) IS NOT NULL AS held
       FROM (SELECT ${frontierSql('$1')} AS frontier) x)
     SELECT f.stable_head, f.held, e.* FROM f LEFT JOIN LATERAL (
       SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE}
       WHERE position > $2 AND position < f.frontier
         AND ($3::text IS NULL OR tenant_id = $3)
         AND ($4::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($4::text[]) p WHERE starts_with(stream_id, p)))
         AND ($5::text[] IS NULL OR type = ANY($5::text[]))
       ORDER BY position LIMIT $6) e ON true`;

/**
 * The matching events after `after` and below the frontier, in position order, all read in one
 * snapshot with the frontier, the last position below it and whether anything waits above it.
 */
export async function readAllChunk(pool: Pool, base: bigint, after: number, limit: number | null, filter?: AllFilter): Promise<AllChunk> {
  const { rows } = await pool.query<EventRowOut & { stable_head: string | null; held: boolean }>({
    name: 'runledger_read_all',
    text: READ_ALL_CHUNK,
    values: [base.toString(), after, filter?.tenantId ?? null, filter?.streamPrefixes ?? null, filter?.types ?? null, limit],
  });
  return {
    events: rows.filter((row) => row.position !== null).map(toStored),
    stableHead: Number(rows[0].stable_head ?? 0),
    held: rows[0].held,
  };
}

/** How many events match after `after`, at most `limit`, without fetching any row (see EventStore.countAll). */
export async function countAllAfter(pool: Pool, after: number, limit: number, filter: AllFilter = {}): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM ${EVENTS_TABLE}
       WHERE position > $1
         AND ($2::text IS NULL OR tenant_id = $2)
         AND ($3::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest($3::text[]) p WHERE starts_with(stream_id, p)))
         AND ($4::text[] IS NULL OR type = ANY($4::text[]))
       ORDER BY position LIMIT $5) e`,
    [after, filter.tenantId ?? null, filter.streamPrefixes ?? null, filter.types ?? null, limit],
  );
  return rows[0].n;
}

const READ_STREAM = `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE} WHERE stream_id = $1 AND revision > $2 ORDER BY revision LIMIT $3`;

export async function readStreamAfter(pool: Pool, streamId: string, after: number, limit: number | null): Promise<StoredEvent[]> {
  const { rows } = await pool.query<EventRowOut>({ name: 'runledger_read_stream', text: READ_STREAM, values: [streamId, after, limit] });
  return rows.map(toStored);
}

const READ_LAST = `SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE} WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1`;

export async function readLastEvent(pool: Pool, streamId: string): Promise<StoredEvent | null> {
  const { rows } = await pool.query<EventRowOut>({ name: 'runledger_read_last', text: READ_LAST, values: [streamId] });
  return rows.length === 0 ? null : toStored(rows[0]);
}

export async function readStreamHead(pool: Pool, streamId: string): Promise<number | null> {
  const { rows } = await pool.query<{ revision: string }>(`SELECT revision FROM ${EVENTS_TABLE} WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1`, [
    streamId,
  ]);
  return rows.length === 0 ? null : Number(rows[0].revision);
}

export async function readStreamTenant(pool: Pool, streamId: string): Promise<string | null> {
  const { rows } = await pool.query<{ tenant_id: string }>(`SELECT tenant_id FROM ${EVENTS_TABLE} WHERE stream_id = $1 ORDER BY revision LIMIT 1`, [streamId]);
  return rows.length === 0 ? null : rows[0].tenant_id;
}
