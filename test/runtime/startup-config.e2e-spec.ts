import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { logMessages } from '../support/json-logs';

/** docs/configuration.md#start-time-checks: the compiled server refuses bad configuration before touching anything, saying why. */
const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const describeBuilt = existsSync(MAIN) ? describe : describe.skip;
if (!existsSync(MAIN)) process.stderr.write('startup config suite skipped: dist/main.js missing (run npm run build)\n');

/** Its exit status and what its JSON log lines on stdout say (every line must parse). */
function start(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 15000,
  });
  return { status: result.status, messages: logMessages(result.stdout) };
}

describeBuilt('startup configuration', () => {
  it('exits non-zero naming every bad value', () => {
    const result = start({ PORT: 'eighty', EVENT_STORE: 'mongo', LOG_LEVEL: 'loud' });
    expect(result.status).toBe(1);
    expect(result.messages).toContain('Invalid configuration');
    expect(result.messages).toContain('PORT must be an integer from 0 to 65535 (got "eighty")');
    expect(result.messages).toContain('EVENT_STORE must be one of sqlite, eventstoredb, postgres (got "mongo")');
    expect(result.messages).toContain('LOG_LEVEL must be one of');
  });

  it('needs a connection string for EventStoreDB', () => {
    const result = start({ EVENT_STORE: 'eventstoredb' });
    expect(result.status).toBe(1);
    expect(result.messages).toContain('EVENTSTOREDB_CONNECTION_STRING is required when EVENT_STORE=eventstoredb');
  });

  it('says clearly when the EventStoreDB server cannot be reached', () => {
    const result = start({ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_CONNECTION_STRING: 'esdb://127.0.0.1:1?tls=false', LOG_LEVEL: 'error' });
    expect(result.status).toBe(1);
    expect(result.messages).toMatch(/Runledger could not start: .*EventStoreDB/);
  });
});
