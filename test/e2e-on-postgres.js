#!/usr/bin/env node
// The second pass of `npm test`: the end-to-end suites again, every app on PostgreSQL instead of
// SQLite (test/support/app-harness.ts reads RUNLEDGER_E2E_STORE). Needs PostgreSQL's binaries;
// without them it says so and passes, unless RUNLEDGER_PG_REQUIRED=1 (CI installs them).
const { existsSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const SUITES = [
  'test/executions', 'test/actions', 'test/cancellation', 'test/idempotency', 'test/artifacts', 'test/conversations',
  'test/read-side', 'test/faults', 'test/auth', 'test/limits', 'test/health', 'test/runtime/runtime.e2e-spec.ts',
  'test/runtime/http-conventions.e2e-spec.ts', 'test/runtime/metrics.e2e-spec.ts', 'test/providers', 'test/fuzz',
  'test/responses',
  'test/usage',
  'test/webhooks',
];

function hasPostgres() {
  const has = (dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  if (process.env.RUNLEDGER_PG_BIN) return has(process.env.RUNLEDGER_PG_BIN);
  const root = '/usr/lib/postgresql';
  if (existsSync(root) && readdirSync(root).some((version) => has(join(root, version, 'bin')))) return true;
  return (process.env.PATH ?? '').split(':').some((dir) => dir && has(dir));
}

if (process.env.RUNLEDGER_PG === 'off' || !hasPostgres()) {
  const why = process.env.RUNLEDGER_PG === 'off' ? 'RUNLEDGER_PG=off' : 'no PostgreSQL binaries (apt-get install postgresql-15)';
  if (process.env.RUNLEDGER_PG_REQUIRED === '1') {
    process.stderr.write(`end-to-end suites on PostgreSQL cannot run: ${why}\n`);
    process.exit(1);
  }
  process.stderr.write(`end-to-end suites on PostgreSQL skipped: ${why}\n`);
  process.exit(0);
}
const jest = require.resolve('jest/bin/jest');
const result = spawnSync(process.execPath, [jest, ...SUITES, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, RUNLEDGER_E2E_STORE: 'postgres' },
});
process.exit(result.status ?? 1);
