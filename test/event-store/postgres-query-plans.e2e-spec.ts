import { Client } from 'pg';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store';
import { SCAN } from '../../src/event-store/postgres/notifications';
import { READ_ALL_CHUNK } from '../../src/event-store/postgres/reads';
import { EVENTS_TABLE } from '../../src/event-store/postgres/schema';
import { createDatabase } from '../support/postgres-cluster';

const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = process.env.RUNLEDGER_PG_SKIP_REASON ?? 'test/global-setup.ts did not run';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const scansOfEvents = (node: PlanNode): string[] => [
  ...(node['Relation Name'] === EVENTS_TABLE ? [node['Node Type']] : []),
  ...(node.Plans ?? []).flatMap(scansOfEvents),
];

const indexesOnEvents = (node: PlanNode): string[] => [
  ...(node['Relation Name'] === EVENTS_TABLE ? [node['Index Name'] ?? node['Node Type']] : []),
  ...(node.Plans ?? []).flatMap(indexesOnEvents),
];

/**
 * Every subscriber of $all runs this read after each wake-up, so it must cost what it returns,
 * not what the table holds: no step of its plan may read the events table from end to end.
 */
(adminUrl ? describe : describe.skip)('PostgreSQL: the plan of a read of $all', () => {
  if (!adminUrl) process.stderr.write(`PostgreSQL query-plan suite skipped: ${skipReason}\n`);
  let sql: Client;
  let base: string;
  let head: number;

  beforeAll(async () => {
    const url = await createDatabase(adminUrl!, 'plans');
    const store = await PostgresEventStore.connect(url);
    const metadata = { tenantId: 'default', schemaVersion: 1, correlationId: null, causationId: null };
    // 20,000 events in 40 transactions, and statistics on them, as a table in service would have.
    for (let batch = 0; batch < 40; batch++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, s) =>
          store.append(
            `execution-${s}`,
            Array.from({ length: 10 }, (_, i) => ({ type: 'output.delta', data: { text: `t${batch}-${i}` }, metadata })),
            'any',
          ),
        ),
      );
    }
    head = await store.headPosition();
    await store.close();
    sql = new Client({ connectionString: url });
    await sql.connect();
    await sql.query(`ANALYZE ${EVENTS_TABLE}`);
    base = (await sql.query<{ base: string }>('SELECT xid_base::text AS base FROM runledger_store')).rows[0].base;
    await sql.query(`PREPARE read_all (text, bigint, text, text[], text[], bigint) AS ${READ_ALL_CHUNK}`);
    await sql.query(`PREPARE scan (text, bigint, text[]) AS ${SCAN.text}`);
  }, 120_000);

  afterAll(async () => {
    await sql?.end();
  });

  const cases: [string, (after: number) => string][] = [
    ['the projector (prefixes), near the head', (after) => `'${base}', ${after}, NULL, ARRAY['execution-','conversation-'], NULL, 1000`],
    [
      'a follower of a few event types',
      (after) => `'${base}', ${after}, NULL, ARRAY['execution-','cancel-request-'], ARRAY['action.responded','cancel.requested'], 1000`,
    ],
    ['a tenant feed', (after) => `'${base}', ${after}, 'default', NULL, NULL, 100`],
  ];

  it.each(cases)('%s: no sequential scan of the events table, with custom and generic plans', async (_label, args) => {
    // PostgreSQL tries five custom plans before it may settle on a generic one: look at both.
    for (let run = 0; run < 7; run++) {
      const { rows } = await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) EXECUTE read_all(${args(head - 500)})`);
      const scans = scansOfEvents(rows[0]['QUERY PLAN'][0].Plan);
      expect(scans.length).toBeGreaterThan(0);
      expect(scans).not.toContain('Seq Scan');
      await sql.query(`EXECUTE read_all(${args(head - 500)})`);
    }
  });

  /**
   * A notification's scan of the followed streams reads what was committed since the previous
   * scan. Walking those streams by (stream_id, revision) instead reads each of them whole, however
   * few of its events are new: the scan must walk positions, whatever the plan and however few
   * streams are followed.
   */
  it.each([
    ['two streams', ['execution-1', 'execution-2']],
    ['fifty streams', Array.from({ length: 50 }, (_, i) => `execution-${i}`)],
  ])('the scan of %s walks positions, in custom and generic plans', async (_label, streams) => {
    const args = (from: number) => `'${base}', ${from}, ARRAY[${streams.map((s) => `'${s}'`).join(',')}]::text[]`;
    // From the 500th and the 5,000th newest event: a scan after a quiet spell, and after a burst.
    const back = async (n: number) =>
      Number((await sql.query<{ position: string }>(`SELECT position FROM ${EVENTS_TABLE} ORDER BY position DESC OFFSET ${n} LIMIT 1`)).rows[0].position);
    for (const from of [await back(500), await back(5_000)]) {
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await sql.query(`SET plan_cache_mode = ${mode}`);
        const { rows } = await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) EXECUTE scan(${args(from)})`);
        expect([mode, indexesOnEvents(rows[0]['QUERY PLAN'][0].Plan)]).toEqual([mode, [`${EVENTS_TABLE}_pkey`]]);
      }
    }
    await sql.query('RESET plan_cache_mode');
  });
});
