import type Database from 'better-sqlite3';
import { keyColumns } from '../read-models/content-hash';

const SHOWN = 5;

/**
 * Says how `main.<table>` differs from `<other>.<table>` (an attached database with the same
 * table): rows only in one of them, and for rows in both, which columns differ. At most a few
 * of each are named; the counts are exact.
 */
export function describeTableDrift(db: Database.Database, table: string, other: string): string[] {
  const keys = keyColumns(db, table);
  const key = keys.join(', ');
  const columns = (db.prepare(`PRAGMA main.table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  const show = (row: unknown[]) => keys.map((k, i) => `${k}=${JSON.stringify(row[i])}`).join(' ');
  const lines: string[] = [];
  const missing = (from: string, to: string, label: string) => {
    const count = db.prepare(`SELECT count(*) FROM (SELECT ${key} FROM ${from}.${table} EXCEPT SELECT ${key} FROM ${to}.${table})`).pluck().get() as number;
    if (count === 0) return;
    const rows = db.prepare(`SELECT ${key} FROM ${from}.${table} EXCEPT SELECT ${key} FROM ${to}.${table} LIMIT ${SHOWN}`).raw(true).all() as unknown[][];
    lines.push(`${count} row(s) ${label}: ${rows.map(show).join('; ')}${count > SHOWN ? '; …' : ''}`);
  };
  missing('main', other, 'only in the live read model');
  missing(other, 'main', 'missing from the live read model');
  // Rows present in both whose content differs.
  const join = keys.map((k) => `l.${k} = r.${k}`).join(' AND ');
  const differs = columns.map((c) => `l.${c} IS NOT r.${c}`).join(' OR ');
  const changed = `SELECT ${keys.map((k) => `l.${k}`).join(', ')}, ${columns.map((c) => `l.${c} IS NOT r.${c}`).join(', ')}
                   FROM main.${table} l JOIN ${other}.${table} r ON ${join} WHERE ${differs}`;
  const count = db.prepare(`SELECT count(*) FROM (${changed})`).pluck().get() as number;
  if (count > 0) {
    const rows = db.prepare(`${changed} LIMIT ${SHOWN}`).raw(true).all() as unknown[][];
    const described = rows.map((row) => {
      const flags = row.slice(keys.length);
      const names = columns.filter((_, i) => flags[i] === 1);
      return `${show(row)} (${names.join(', ')})`;
    });
    lines.push(`${count} row(s) differ: ${described.join('; ')}${count > SHOWN ? '; …' : ''}`);
  }
  return lines;
}
