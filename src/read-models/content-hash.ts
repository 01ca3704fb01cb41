import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { Projection } from './projection';

export interface TableHash {
  table: string;
  rows: number;
  /** sha256 over the column names and every row, in primary-key order. */
  hash: string;
}

/** The table's primary-key columns in key order (all columns when it has none), for a stable row order. */
export function keyColumns(db: Database.Database, table: string, schema = 'main'): string[] {
  const columns = db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string; pk: number }[];
  const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  return (keys.length > 0 ? keys : columns).map((c) => c.name);
}

/**
 * A content hash of one projection's tables: rows read in primary-key order (never rowid or
 * insertion order, which differ between a live read model and a rebuild of it), so two
 * databases holding the same rows hash the same. Streams the rows: memory stays flat.
 */
export function contentHash(db: Database.Database, projection: Projection, schema = 'main'): TableHash[] {
  return projection.tables.map((table) => {
    const columns = (db.prepare(`PRAGMA ${schema}.table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
    const order = keyColumns(db, table, schema).join(', ');
    const hash = createHash('sha256').update(`${JSON.stringify(columns)}\n`);
    let rows = 0;
    for (const row of db.prepare(`SELECT * FROM ${schema}.${table} ORDER BY ${order}`).raw(true).iterate()) {
      hash.update(`${JSON.stringify(row)}\n`);
      rows += 1;
    }
    return { table, rows, hash: hash.digest('hex') };
  });
}
