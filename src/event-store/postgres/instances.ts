import type { Pool } from 'pg';
import { InstanceRegistry } from '../event-store';
import { asStoreUnavailable } from './postgres-errors';

/** Heartbeats in `runledger_instances`, timed by the database's clock so instances' clocks never matter. */
export class PostgresInstances implements InstanceRegistry {
  constructor(private readonly pool: Pool) {}

  async beat(instanceId: string): Promise<void> {
    await this.query(
      `INSERT INTO runledger_instances (instance_id, last_seen) VALUES ($1, clock_timestamp())
       ON CONFLICT (instance_id) DO UPDATE SET last_seen = excluded.last_seen`,
      [instanceId],
    );
  }

  async alive(lapseMs: number): Promise<Set<string>> {
    const { rows } = await this.query(
      `SELECT instance_id FROM runledger_instances WHERE last_seen > clock_timestamp() - make_interval(secs => $1::float8 / 1000)`,
      [lapseMs],
    );
    return new Set(rows.map((row: { instance_id: string }) => row.instance_id));
  }

  async leave(instanceId: string): Promise<void> {
    await this.query('DELETE FROM runledger_instances WHERE instance_id = $1', [instanceId]);
  }

  private async query(sql: string, values: unknown[]) {
    try {
      return await this.pool.query(sql, values);
    } catch (error) {
      throw asStoreUnavailable(error, 'the instance heartbeats');
    }
  }
}
