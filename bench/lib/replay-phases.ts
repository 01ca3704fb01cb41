import Database from 'better-sqlite3';
import { HttpClient } from './http-client';
import { getText } from './timing';

export interface Rates {
  oneRead: number;
  pages: number;
  sse: number;
}

/**
 * Events per second for the replay of one finished execution holding `total` events, `repeats`
 * times each way: one GET of every event, 1,000-event pages, and the SSE backlog to its end.
 * Every way is checked to deliver all `total` events.
 */
export async function replayRates(client: HttpClient, id: string, total: number, repeats: number): Promise<Rates> {
  const path = `/v1/executions/${id}/events`;
  const timed = async (body: () => Promise<number>) => {
    const started = performance.now();
    let events = 0;
    for (let r = 0; r < repeats; r++) {
      const got = await body();
      if (got !== total) throw new Error(`replay of ${id} delivered ${got} events, expected ${total}`);
      events += got;
    }
    return events / ((performance.now() - started) / 1000);
  };
  let checked = false;
  const oneRead = await timed(async () => {
    const { status, text } = await getText(client, path);
    if (status !== 200) throw new Error(`GET ${path}: ${status}`);
    // Parsed once, to check; the client's parsing is no part of what is measured after that.
    if (!checked) {
      checked = true;
      return JSON.parse(text).events.length;
    }
    return total;
  });
  const pages = await timed(async () => {
    let after = 0;
    let count = 0;
    for (;;) {
      const { body } = await client.json('GET', `${path}?after=${after}&limit=1000`);
      count += body.events.length;
      if (body.events.length < 1000 || after + body.events.length >= body.lastSequence) return count;
      after = body.events[body.events.length - 1].sequence;
    }
  });
  const sse = await timed(async () => {
    let count = 0;
    await client.sse(path, () => (count += 1));
    return count;
  });
  return { oneRead, pages, sse };
}

/** The baseline: better-sqlite3 reading the same stream's rows straight from the file, `repeats` times (`parse`: JSON.parse data and metadata too). */
export function rawStreamRate(sqlitePath: string, streamId: string, repeats: number, parse: boolean): number {
  const db = new Database(sqlitePath, { readonly: true });
  try {
    const select = db.prepare('SELECT * FROM events WHERE stream_id = ? ORDER BY revision');
    select.all(streamId); // warm, as the server's reads are
    const started = performance.now();
    let rows = 0;
    for (let r = 0; r < repeats; r++) {
      const all = select.all(streamId) as { data: string; metadata: string }[];
      if (parse) {
        for (const row of all) {
          JSON.parse(row.data);
          JSON.parse(row.metadata);
        }
      }
      rows += all.length;
    }
    return rows / ((performance.now() - started) / 1000);
  } finally {
    db.close();
  }
}
