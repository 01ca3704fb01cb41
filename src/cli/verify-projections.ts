/**
 * `npm run projections:verify`: rebuilds every read model into a temporary database up to the
 * live checkpoints and compares content hashes with the live read models. Prints one line per
 * projection (and how it drifted) on stdout; exits 1 on any drift, 0 otherwise. Run it with the
 * server stopped: it takes both files' locks, and refuses while a server holds either.
 */
import 'reflect-metadata';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config';
import { PROJECTIONS } from '../read-models/projections';
import { cliOptions, runCli } from './cli';
import { openOfflineReadModels, openOfflineStore } from './offline-files';
import { progressBar } from './progress';
import { verifyProjections } from './verify';

runCli(async () => {
  cliOptions({}, 'npm run projections:verify');
  const config = loadConfig();
  const store = await openOfflineStore(config);
  const dir = mkdtempSync(join(tmpdir(), 'runledger-verify-'));
  try {
    const live = openOfflineReadModels(config, true);
    try {
      const path = join(dir, 'rebuilt.db');
      // Scratch data: nothing to make durable.
      const scratch = new Database(path);
      scratch.pragma('journal_mode = OFF');
      scratch.pragma('synchronous = OFF');
      let bar: ReturnType<typeof progressBar> | undefined;
      const verdicts = await verifyProjections(store, live.db, { db: scratch, path }, PROJECTIONS, (position, end) => {
        bar ??= progressBar('verify', end);
        bar.update(position);
      }).finally(() => bar?.stop());
      for (const { name, checkpoint, rows, drift } of verdicts) {
        const where = `checkpoint ${checkpoint}, ${rows} rows`;
        process.stdout.write(drift.length === 0 ? `${name}: ok (${where})\n` : `${name}: DRIFT (${where})\n${drift.map((d) => `  ${d}\n`).join('')}`);
      }
      const drifted = verdicts.filter((v) => v.drift.length > 0).map((v) => v.name);
      process.stdout.write(drifted.length === 0 ? 'no drift\n' : `drift in ${drifted.join(', ')}\n`);
      return drifted.length === 0 ? 0 : 1;
    } finally {
      live.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
