import type { EsdbGlobal } from './global-setup';

/**
 * Stops the KurrentDB container global-setup.ts started, if any (testcontainers' reaper is only the
 * fallback), and stops and deletes its PostgreSQL cluster.
 */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as EsdbGlobal;
  const cluster = holder.__RUNLEDGER_PG_CLUSTER__;
  if (cluster) {
    holder.__RUNLEDGER_PG_CLUSTER__ = undefined;
    delete process.env.RUNLEDGER_PG_URL;
    await cluster.destroy();
  }
  const container = holder.__RUNLEDGER_ESDB_CONTAINER__;
  if (!container) return;
  holder.__RUNLEDGER_ESDB_CONTAINER__ = undefined;
  // In watch mode the next run's setup must start a new container, not reuse this URL.
  delete process.env.RUNLEDGER_ESDB_URL;
  await container.stop();
}
