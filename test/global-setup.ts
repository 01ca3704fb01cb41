/**
 * Decides once per jest run whether the EventStoreDB suites can run, and where.
 *
 * Outcome, read by the suites (jest workers inherit this process's environment):
 * - RUNLEDGER_ESDB_URL: a connection string to a server that answered, or
 * - RUNLEDGER_ESDB_SKIP_REASON: why there is none; the suites skip and print it.
 *
 * Source of the server: EVENTSTOREDB_CONNECTION_STRING if set (an unreachable one is a skip with
 * its reason, not a crash of the whole run); otherwise a throw-away KurrentDB container through
 * testcontainers. Without a container runtime testcontainers rejects within milliseconds, so a
 * machine without Docker pays only for loading the library. RUNLEDGER_ESDB=off skips on purpose.
 */
import { join } from 'node:path';
import type { StartedTestContainer } from 'testcontainers';
import { compileWorkers } from './support/compile-workers';
import type { PostgresCluster } from './support/postgres-cluster';

const DEFAULT_IMAGE = 'kurrentplatform/kurrentdb:25.0';

/** Shared with global-teardown.ts: jest runs both in the same context. */
export interface EsdbGlobal {
  __RUNLEDGER_ESDB_CONTAINER__?: StartedTestContainer;
  __RUNLEDGER_PG_CLUSTER__?: PostgresCluster;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}

async function probe(connectionString: string): Promise<void> {
  const { EventStoreDbEventStore } = await import('../src/event-store/eventstoredb/eventstoredb-event-store');
  const store = await EventStoreDbEventStore.connect(connectionString);
  await store.close();
}

async function startContainer(): Promise<string> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const image = process.env.RUNLEDGER_ESDB_IMAGE ?? DEFAULT_IMAGE;
  const container = await new GenericContainer(image)
    .withEnvironment({
      KURRENTDB_CLUSTER_SIZE: '1',
      KURRENTDB_INSECURE: 'true',
      KURRENTDB_RUN_PROJECTIONS: 'None',
      KURRENTDB_MEM_DB: 'true',
    })
    .withExposedPorts(2113)
    // The image's own HEALTHCHECK polls /health/live.
    .withWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(120_000)
    .start();
  (globalThis as EsdbGlobal).__RUNLEDGER_ESDB_CONTAINER__ = container;
  const url = `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;
  process.stderr.write(`EventStoreDB: started ${image} at ${url}\n`);
  return url;
}

async function decide(): Promise<{ url: string } | { skip: string }> {
  if (process.env.RUNLEDGER_ESDB === 'off') return { skip: 'disabled by RUNLEDGER_ESDB=off' };
  const configured = process.env.EVENTSTOREDB_CONNECTION_STRING;
  if (configured) {
    try {
      await probe(configured);
      return { url: configured };
    } catch (error) {
      return { skip: `EVENTSTOREDB_CONNECTION_STRING is set but unusable: ${firstLine(error)}` };
    }
  }
  let url: string;
  try {
    url = await startContainer();
  } catch (error) {
    return { skip: `no EVENTSTOREDB_CONNECTION_STRING and no container: ${firstLine(error)}` };
  }
  try {
    await probe(url);
    return { url };
  } catch (error) {
    return { skip: `the KurrentDB container does not answer: ${firstLine(error)}` };
  }
}

/**
 * PostgreSQL, likewise: a throw-away cluster (test/support/postgres-cluster.ts) started once per
 * run, in a temporary directory on a free port, stopped and deleted by global-teardown.ts.
 * - RUNLEDGER_PG_URL: its `postgres` database as superuser (suites create their own databases), or
 * - RUNLEDGER_PG_SKIP_REASON: why there is none (no binaries, RUNLEDGER_PG=off, initdb failed).
 * RUNLEDGER_PG_REQUIRED=1 (set by .ci/run) turns a skip into a failed run.
 */
async function setUpPostgres(): Promise<void> {
  if (process.env.RUNLEDGER_PG_URL || process.env.RUNLEDGER_PG_SKIP_REASON) return;
  let skip: string;
  if (process.env.RUNLEDGER_PG === 'off') {
    skip = 'disabled by RUNLEDGER_PG=off';
  } else {
    const { findPostgresBinaries, startCluster } = await import('./support/postgres-cluster');
    if (!findPostgresBinaries()) {
      skip = 'no PostgreSQL binaries (initdb, pg_ctl): apt-get install postgresql-15, or set RUNLEDGER_PG_BIN';
    } else {
      try {
        const cluster = await startCluster();
        (globalThis as EsdbGlobal).__RUNLEDGER_PG_CLUSTER__ = cluster;
        // Should jest die without its teardown, the server and its directory still go.
        process.once('exit', () => cluster.destroySync());
        process.env.RUNLEDGER_PG_URL = cluster.adminUrl;
        return;
      } catch (error) {
        skip = `the PostgreSQL test cluster did not start: ${firstLine(error)}`;
      }
    }
  }
  if (process.env.RUNLEDGER_PG_REQUIRED === '1') throw new Error(`PostgreSQL is required (RUNLEDGER_PG_REQUIRED=1) but ${skip}`);
  process.env.RUNLEDGER_PG_SKIP_REASON = skip;
}

export default async function globalSetup(): Promise<void> {
  const root = join(__dirname, '..');
  const workers = join(root, '.cache', 'test-workers');
  compileWorkers(root, workers);
  process.env.RUNLEDGER_WORKERS_MIRROR = JSON.stringify({ from: root, to: workers });
  await setUpPostgres();
  // Watch mode runs this again; a decision already made (or a URL given by hand) stands.
  if (process.env.RUNLEDGER_ESDB_URL || process.env.RUNLEDGER_ESDB_SKIP_REASON) return;
  const outcome = await decide();
  if ('url' in outcome) process.env.RUNLEDGER_ESDB_URL = outcome.url;
  else process.env.RUNLEDGER_ESDB_SKIP_REASON = outcome.skip;
}
