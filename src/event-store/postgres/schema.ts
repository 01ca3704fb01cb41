import type { Pool } from 'pg';
import { INDEX_BITS } from './position';

export const EVENTS_TABLE = 'runledger_events';
const MIGRATIONS_TABLE = 'runledger_migrations';
/** Serialises migrations of instances starting at once (an arbitrary constant: "RLEDGER1"). */
const MIGRATION_LOCK = '5494834565644521';

/**
 * Versioned migrations, one row per applied step in `runledger_migrations`. Append new steps;
 * never edit one that has shipped, because existing databases have already run it.
 *
 * data and metadata are `json`, which keeps the exact text written (key order, spacing), so a
 * replay reads back the very bytes the live stream sent. `tx_id` is the writing transaction and
 * `position` is derived from it (see position.ts); `runledger_store.xid_base` is the id of the
 * transaction that created the table, from which positions count.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE runledger_store (
     xid_base   bigint      NOT NULL,
     index_bits integer     NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now()
   );
   INSERT INTO runledger_store (xid_base, index_bits) VALUES (pg_current_xact_id()::text::bigint, ${INDEX_BITS});
   CREATE TABLE ${EVENTS_TABLE} (
     position       bigint  PRIMARY KEY,
     tx_id          xid8    NOT NULL DEFAULT pg_current_xact_id(),
     stream_id      text    NOT NULL,
     revision       bigint  NOT NULL,
     event_id       uuid    NOT NULL,
     tenant_id      text    NOT NULL,
     schema_version integer NOT NULL,
     type           text    NOT NULL,
     data           json    NOT NULL,
     metadata       json    NOT NULL,
     occurred_at    text    NOT NULL,
     CONSTRAINT ${EVENTS_TABLE}_stream_revision UNIQUE (stream_id, revision)
   );
   CREATE INDEX ${EVENTS_TABLE}_by_tenant ON ${EVENTS_TABLE} (tenant_id, position);`,
  // Heartbeats of the instances sharing the store: operational state, not history, so a table of
  // its own rather than events in the audit log.
  `CREATE TABLE runledger_instances (
     instance_id text        PRIMARY KEY,
     last_seen   timestamptz NOT NULL
   );`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface StoreConstants {
  /** The xid from which positions count. */
  xidBase: bigint;
}

/**
 * Brings the database to SCHEMA_VERSION in one transaction under an advisory lock, so instances
 * starting together migrate once; refuses a database migrated by a newer build.
 */
export async function migrate(pool: Pool): Promise<StoreConstants> {
  const client = await pool.connect();
  let failed: unknown;
  const onError = (error: Error): void => void (failed ??= error);
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`);
    const current = rows[0].version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(`the event store database has schema version ${current}, newer than this build understands (${SCHEMA_VERSION})`);
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version]);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (version) VALUES ($1)`, [version + 1]);
    }
    const store = await client.query<{ xid_base: string; index_bits: number }>('SELECT xid_base, index_bits FROM runledger_store');
    if (store.rows.length !== 1 || store.rows[0].index_bits !== INDEX_BITS) {
      throw new Error(`runledger_store must hold one row with index_bits = ${INDEX_BITS}`);
    }
    await client.query('COMMIT');
    return { xidBase: BigInt(store.rows[0].xid_base) };
  } catch (error) {
    failed ??= error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', onError);
    // A failed migration leaves nothing worth keeping on that connection.
    client.release(failed !== undefined);
  }
}
