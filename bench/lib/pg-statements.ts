import { Client } from 'pg';

/** Cluster settings that load pg_stat_statements (`bench:instances -- --statements`). */
export const STATEMENT_SETTINGS = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track': 'all',
  'pg_stat_statements.track_planning': 'on',
};

/** Creates the extension in a fresh database, so its statements can be listed after a phase. */
export async function trackStatements(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  } finally {
    await client.end();
  }
}

/** The statements that used the most of PostgreSQL's time in this database, one line each. */
export async function topStatements(databaseUrl: string, count: number): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: number; plan: number; calls: string; mean: number; rows: string; query: string }>(
      `SELECT total_exec_time AS total, total_plan_time AS plan, calls, mean_exec_time AS mean, rows, query FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`,
      [count],
    );
    return rows.map(
      (r) =>
        `${r.total.toFixed(0).padStart(7)} ms (planning ${r.plan.toFixed(0).padStart(5)} ms) ${String(r.calls).padStart(8)} calls ${r.mean.toFixed(3).padStart(8)} ms each ${String(r.rows).padStart(8)} rows  ` +
        r.query.replace(/\s+/g, ' ').slice(0, 140),
    );
  } finally {
    await client.end();
  }
}
