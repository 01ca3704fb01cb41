/**
 * `npm run projections:rebuild [-- --name <projection>]`: drops the read models (all, or the one
 * named) and replays every event into them, with a progress bar on stderr. Run it with the
 * server stopped: it takes both files' locks, and refuses while a server holds either.
 */
import 'reflect-metadata';
import { loadConfig } from '../config/config';
import { PROJECTIONS } from '../read-models/projections';
import { CliError, cliOptions, runCli } from './cli';
import { openOfflineReadModels, openOfflineStore } from './offline-files';
import { progressBar } from './progress';
import { rebuildProjections } from './rebuild';

const USAGE = 'npm run projections:rebuild [-- --name <projection>]';

runCli(async () => {
  const { name } = cliOptions({ name: { type: 'string' } }, USAGE);
  const selected = name === undefined ? PROJECTIONS : PROJECTIONS.filter((p) => p.name === name);
  if (selected.length === 0) {
    throw new CliError(`no projection named "${name}"; there are ${PROJECTIONS.map((p) => p.name).join(', ')}\nusage: ${USAGE}`);
  }
  const config = loadConfig();
  const store = await openOfflineStore(config);
  try {
    const readModels = openOfflineReadModels(config);
    try {
      const started = performance.now();
      const total = await store.headPosition();
      const bar = progressBar('rebuild', total);
      try {
        await rebuildProjections(store, readModels.db, selected, (position) => bar.update(position));
      } finally {
        bar.stop();
      }
      const seconds = (performance.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(total / seconds).toLocaleString('en-US') : '-';
      process.stderr.write(
        `rebuilt ${selected.map((p) => p.name).join(', ')} from ${total.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s ` +
          `(${rate} events/s) into ${config.readModelPath}\n`,
      );
    } finally {
      readModels.close();
    }
  } finally {
    await store.close();
  }
  return 0;
});
