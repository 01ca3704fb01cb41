import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Worker, WorkerOptions } from 'node:worker_threads';

/**
 * Starts the worker script `name` of the folder `dir` (a module's `__dirname`): its compiled
 * `.js` under `dist/`; under jest, which has only the TypeScript sources, the copy its global
 * setup transpiled (test/support/compile-workers.ts, named by RUNLEDGER_WORKERS_MIRROR); failing
 * both (ts-node), the source through ts-node's transpile-only hook, registered inside the worker.
 */
export function spawnWorker(dir: string, name: string, options: WorkerOptions = {}): Worker {
  const compiled = join(dir, `${name}.js`);
  if (existsSync(compiled)) return new Worker(compiled, options);
  const mirrored = mirroredScript(dir, name);
  if (mirrored) return new Worker(mirrored, options);
  const source = JSON.stringify(join(dir, `${name}.ts`));
  return new Worker(`require('ts-node').register({ transpileOnly: true }); require(${source});`, { ...options, eval: true });
}

function mirroredScript(dir: string, name: string): string | null {
  const mirror = process.env.RUNLEDGER_WORKERS_MIRROR;
  if (!mirror) return null;
  const { from, to } = JSON.parse(mirror) as { from: string; to: string };
  const script = join(to, relative(from, dir), `${name}.js`);
  return existsSync(script) ? script : null;
}
