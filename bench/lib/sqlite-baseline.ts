import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { migrate } from '../../src/event-store/sqlite/schema';
import { onExit } from './cleanup';

export interface BaselineResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  rowBytes: number;
}

/**
 * Raw better-sqlite3 inserts of rows shaped like the adapter's stored `output.text.delta` events
 * (same table via the adapter's own migration, same pragmas: exclusive locking, WAL,
 * synchronous=FULL), `perTransaction` rows per transaction, on a fresh temp file.
 */
export function sqliteBaseline(options: { rows: number; streams: number; perTransaction: number; text: (i: number) => string }): BaselineResult {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-baseline-'));
  const removeDir = onExit(() => rmSync(dir, { recursive: true, force: true }));
  const db = new Database(join(dir, 'baseline.db'));
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db);
    const ids = Array.from({ length: options.streams }, () => uuidv7());
    const revisions = new Array<number>(options.streams).fill(0);
    const rows: [string, number, string, string, string, string][] = [];
    for (let i = 0; i < options.rows; i++) {
      const s = i % options.streams;
      rows.push([
        `execution-${ids[s]}`,
        revisions[s]++,
        'output.text.delta',
        JSON.stringify({ delta: options.text(Math.floor(i / options.streams)) }),
        JSON.stringify({ tenantId: 'default', schemaVersion: 1, correlationId: ids[s], causationId: null }),
        new Date().toISOString(),
      ]);
    }
    const rowBytes = rows[0].reduce<number>((n, v) => n + String(v).length, 0);
    const insert = db.prepare('INSERT INTO events (stream_id, revision, type, data, metadata, occurred_at) VALUES (?, ?, ?, ?, ?, ?)');
    const commit = db.transaction((batch: typeof rows) => {
      for (const row of batch) insert.run(...row);
    });
    const started = performance.now();
    for (let i = 0; i < rows.length; i += options.perTransaction) commit(rows.slice(i, i + options.perTransaction));
    const seconds = (performance.now() - started) / 1000;
    return { rows: rows.length, seconds, rowsPerSecond: rows.length / seconds, rowBytes };
  } finally {
    db.close();
    removeDir();
  }
}
