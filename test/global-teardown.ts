import type { EsdbGlobal } from './global-setup';

/** Stops the container global-setup.ts started, if any (testcontainers' reaper is only the fallback). */
export default async function globalTeardown(): Promise<void> {
  const holder = globalThis as EsdbGlobal;
  const container = holder.__RUNLEDGER_ESDB_CONTAINER__;
  if (!container) return;
  holder.__RUNLEDGER_ESDB_CONTAINER__ = undefined;
  // In watch mode the next run's setup must start a new container, not reuse this URL.
  delete process.env.RUNLEDGER_ESDB_URL;
  await container.stop();
}
