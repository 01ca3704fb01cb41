import Database from 'better-sqlite3';

/**
 * The baselines the port's reads are held against: better-sqlite3 reading the events table
 * directly, in position order, `page` rows per statement. `parse`: also JSON.parse each row's
 * data and metadata (what any reader must do before it can use an event).
 */
export function rawReadAll(path: string, page: number, parse: boolean): { rows: number; seconds: number } {
  const db = new Database(path, { readonly: true });
  try {
    const select = db.prepare(`SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ${page}`);
    const started = performance.now();
    let after = 0;
    let rows = 0;
    for (;;) {
      const batch = select.all(after) as { position: number; data: string; metadata: string }[];
      if (parse) {
        for (const row of batch) {
          JSON.parse(row.data);
          JSON.parse(row.metadata);
        }
      }
      rows += batch.length;
      if (batch.length < page) break;
      after = batch[batch.length - 1].position;
    }
    return { rows, seconds: (performance.now() - started) / 1000 };
  } finally {
    db.close();
  }
}
