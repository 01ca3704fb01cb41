import { spawnSync } from 'node:child_process';
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The layering rules in .dependency-cruiser.js bite: probe files that break each rule make
 * dependency-cruiser report that rule by name. The probes live only for the duration of the
 * cruise and are deleted in a finally, whatever happens.
 */
const ROOT = resolve(__dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** path relative to ROOT → content. */
const PROBES: Record<string, string> = {
  // A domain file importing Nest (and a node: I/O module).
  'src/executions/domain/__lint_probe__.ts':
    "import { Injectable } from '@nestjs/common';\nimport { readFileSync } from 'node:fs';\nexport const probe = [Injectable, readFileSync];\n",
  // Fastify and a storage adapter, from a folder that is neither the HTTP edge nor event-store.
  'src/read-models/__lint_probe__.ts':
    "import type { FastifyInstance } from 'fastify';\nimport { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';\n" +
    'export const probe = (app: FastifyInstance) => [app, SqliteEventStore];\n',
  // A read-model slice reading another slice's tables.
  'src/read-models/actions/__lint_probe__.ts':
    "import { ExecutionsReadModel } from '../executions/executions.read-model';\nexport const probe = ExecutionsReadModel;\n",
  // A feature reaching past a read model's queries.
  'src/conversations/__lint_probe__.ts':
    "import { conversationsProjection } from '../read-models/conversations/conversations.projection';\nexport const probe = conversationsProjection;\n",
  // A command handler reaching into the runner instead of appending to the log.
  'src/executions/commands/__lint_probe__.ts': "import { ExecutionRunner } from '../runner/execution-runner';\nexport const probe = ExecutionRunner;\n",
  // An HTTP status outside the HTTP edge.
  'src/providers/__lint_probe__.ts': "import { ApiError } from '../http/api-error';\nexport const probe = ApiError;\n",
  // A cycle between two top-level folders.
  'src/feed/__lint_probe__.ts': "import { back } from '../health/__lint_probe__';\nexport const there = () => back;\n",
  'src/health/__lint_probe__.ts': "import { there } from '../feed/__lint_probe__';\nexport const back = () => there;\n",
};

/** Runs dependency-cruiser as `npm run lint` does (its default "err" report, whose exit code counts the errors). */
function cruise(paths: string[]): { status: number | null; violations: string[]; output: string } {
  const run = spawnSync(process.execPath, [DEPCRUISE, ...paths, '--config', '.dependency-cruiser.js'], { cwd: ROOT, encoding: 'utf8' });
  const output = run.stdout + run.stderr;
  // One line per violation, "  error <rule>: <from> → <to>"; a cycle lists the rest of its path on the lines below.
  const violations = [...output.matchAll(/^\s*error (\S+: \S+ →(?: \S+)?)\s*$/gm)].map((m) => m[1]);
  return { status: run.status, violations, output };
}

describe('layering rules (.dependency-cruiser.js)', () => {
  it('pass on the code as it is', () => {
    const { status, violations, output } = cruise(['src']);
    expect(violations).toEqual([]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('no dependency violations found') });
  });

  it('report a probe that breaks each rule, and the probes are gone afterwards', () => {
    const paths = Object.keys(PROBES);
    try {
      for (const [path, content] of Object.entries(PROBES)) writeFileSync(join(ROOT, path), content, { flag: 'wx' });
      const { status, violations } = cruise(paths);
      expect(status).not.toBe(0);
      expect(violations).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^domain-is-pure: src\/executions\/domain\/__lint_probe__\.ts → .*@nestjs\/common/),
          expect.stringMatching(/^domain-is-pure: src\/executions\/domain\/__lint_probe__\.ts → (node:)?fs$/),
          expect.stringMatching(/^fastify-only-at-the-http-edge: src\/read-models\/__lint_probe__\.ts → .*node_modules\/fastify\//),
          expect.stringMatching(/^adapters-only-from-event-store: src\/read-models\/__lint_probe__\.ts → src\/event-store\/sqlite\//),
          expect.stringMatching(/^read-model-slices-apart: src\/read-models\/actions\/__lint_probe__\.ts → src\/read-models\/executions\//),
          expect.stringMatching(/^features-use-read-models-through-their-queries: src\/conversations\/__lint_probe__\.ts → src\/read-models\/conversations\//),
          expect.stringMatching(/^commands-reach-the-runner-through-the-log: src\/executions\/commands\/__lint_probe__\.ts → src\/executions\/runner\//),
          expect.stringMatching(/^http-statuses-only-at-the-http-edge: src\/providers\/__lint_probe__\.ts → src\/http\/api-error\.ts$/),
          expect.stringMatching(/^no-cycles-between-top-level-folders: src\/(feed|health)\/__lint_probe__\.ts →/),
        ]),
      );
    } finally {
      for (const path of paths) if (existsSync(join(ROOT, path))) unlinkSync(join(ROOT, path));
    }
    for (const path of paths) expect(existsSync(join(ROOT, path))).toBe(false);
  });
});
