/**
 * `npm run -s export -- --after 0 [--tenant <id>] > events.ndjson`: the audit feed as NDJSON on
 * stdout and nothing else (a summary goes to stderr). Run it with the server stopped: it takes
 * the event store file's lock, and refuses while a server holds it.
 */
import 'reflect-metadata';
import { loadConfig } from '../config/config';
import { CliError, cliOptions, runCli } from './cli';
import { exportFeed } from './export-feed';
import { openOfflineStore } from './offline-files';

const USAGE = 'npm run -s export -- [--after <position>] [--tenant <id>] > events.ndjson';

runCli(async () => {
  const args = cliOptions({ after: { type: 'string' }, tenant: { type: 'string' } }, USAGE);
  const after = args.after === undefined ? 0 : Number(args.after);
  if (!/^\d+$/.test(args.after ?? '0') || !Number.isSafeInteger(after)) throw new CliError(`--after must be a non-negative integer\nusage: ${USAGE}`);
  if (args.tenant === '') throw new CliError(`--tenant must not be empty\nusage: ${USAGE}`);
  const store = await openOfflineStore(loadConfig());
  // A reader that goes away (`| head`) ends the export quietly instead of with a stack.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  try {
    const { events, lastPosition } = await exportFeed(store, { after, tenantId: args.tenant }, process.stdout);
    const scope = args.tenant === undefined ? 'all tenants' : `tenant ${args.tenant}`;
    process.stderr.write(`exported ${events} events of ${scope} after position ${after} (last position ${lastPosition})\n`);
  } finally {
    await store.close();
  }
  // process.exit would drop what is still queued for a pipe: let stdout drain first.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  return 0;
});
