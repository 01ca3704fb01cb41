import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/** The worker scripts of src/ (started with src/common/spawn-worker.ts). */
const WORKERS = [
  'src/event-store/sqlite/writer-thread.ts',
  'src/event-store/postgres/writer-thread.ts',
  'src/read-models/projector-thread.ts',
  'src/common/json-schema/schema-worker.ts',
];

/**
 * Under jest only TypeScript sources exist, and a worker would register ts-node itself at every
 * start (a second of CPU each, for every app a suite starts). So the run transpiles each worker
 * and the local modules it imports once, into `out` mirroring the repository (inside it, so
 * packages still resolve from its node_modules), and spawn-worker.ts takes them from there.
 */
export function compileWorkers(root: string, out: string): void {
  const done = new Set<string>();
  const visit = (file: string): void => {
    if (done.has(file)) return;
    done.add(file);
    const source = readFileSync(file, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true },
    });
    const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
    for (const [, specifier] of source.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const base = resolve(dirname(file), specifier);
      visit(existsSync(`${base}.ts`) ? `${base}.ts` : join(base, 'index.ts'));
    }
  };
  for (const worker of WORKERS) visit(join(root, worker));
}
