import type Database from 'better-sqlite3';
import { AllFilter, StoredEvent } from '../event-store';
import { StoredRow } from '../stored-row';

/** A row of the `events` table as better-sqlite3 returns it. */
export interface EventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  occurred_at: string;
  schema_version: number;
}

export function toStored(row: EventRow): StoredEvent {
  return new StoredRow(row.event_id, row.stream_id, row.revision, row.position, row.type, row.data, row.metadata, row.occurred_at, row.schema_version);
}

/**
 * The SQL of a filtered read after a position, up to another (both bound, in that order): the
 * filter's values become literals of the statement text (tested by plain comparisons per row, no
 * JSON parsing). The tenant test goes first so that `events_by_tenant` serves tenant-scoped reads.
 * `limit` is a literal or `?`.
 */
function whereSql(filter: AllFilter): string {
  const where = ['position > ? AND position <= ?'];
  const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
  if (filter.tenantId !== undefined) where.push(`tenant_id = ${literal(filter.tenantId)}`);
  if (filter.streamPrefixes) {
    const tests = filter.streamPrefixes.map((p) => `substr(stream_id, 1, ${[...p].length}) = ${literal(p)}`);
    where.push(tests.length > 0 ? `(${tests.join(' OR ')})` : '0');
  }
  if (filter.types) where.push(filter.types.length > 0 ? `type IN (${filter.types.map(literal).join(', ')})` : '0');
  return where.join(' AND ');
}

function filteredSql(filter: AllFilter, limit: string): string {
  return `SELECT * FROM events WHERE ${whereSql(filter)} ORDER BY position LIMIT ${limit}`;
}

/** Counts the matching rows between two positions, at most a bound limit of them, reading no row's data. */
export const countSql = (filter: AllFilter): string => `SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE ${whereSql(filter)} ORDER BY position LIMIT ?)`;

/** Each distinct filter's statement, prepared once. */
export class FilteredStatements {
  private readonly statements = new Map<string, Database.Statement<[number, number, ...number[]], EventRow>>();

  constructor(private readonly db: Database.Database) {}

  get(filter: AllFilter, limit: string): Database.Statement<[number, number, ...number[]], EventRow> {
    return this.prepared(filteredSql(filter, limit));
  }

  count(filter: AllFilter): Database.Statement<[number, number, number], { n: number }> {
    return this.prepared(countSql(filter)) as unknown as Database.Statement<[number, number, number], { n: number }>;
  }

  private prepared(sql: string): Database.Statement<[number, number, ...number[]], EventRow> {
    let statement = this.statements.get(sql);
    if (!statement) {
      // One statement per tenant's feed: a bound keeps many tenants from growing the cache forever.
      if (this.statements.size >= 256) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
