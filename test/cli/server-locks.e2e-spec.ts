import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { tempSqlitePath } from '../support/app-harness';
import { built, killLeftovers, launch } from '../runtime/compiled-server';
import { describeCli, runCommand } from './cli-process';

/** Every command refuses, on stderr with exit code 1, while a server (compiled, spawned) holds a file it needs. */
const describeServer = built ? describeCli : describe.skip;

describeServer('commands refuse while a server holds the files', () => {
  const sqlitePath = tempSqlitePath();
  afterEach(killLeftovers);
  afterAll(() => rmSync(dirname(sqlitePath), { recursive: true, force: true }));

  it('export, rebuild and verify name the event store file in use, and stdout stays empty', async () => {
    const server = await launch({ SQLITE_PATH: sqlitePath });
    for (const command of ['export', 'rebuild', 'verify'] as const) {
      const result = await runCommand(command, [], { SQLITE_PATH: sqlitePath });
      expect({ command, code: result.code, stdout: result.stdout }).toEqual({ command, code: 1, stdout: '' });
      expect(result.stderr).toContain(`the event store file ${sqlitePath} is in use by another process`);
      expect(result.stderr).toMatch(/stop the Runledger server that uses it/);
      expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
    }
    // The server is unaffected.
    expect((await fetch(`${server.baseUrl}/v1/runtime`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it('rebuild and verify refuse when only the read-model file is held', async () => {
    const server = await launch({ SQLITE_PATH: sqlitePath });
    // Another log, free; the read models of the running server.
    const otherLog = join(dirname(sqlitePath), 'other.db');
    await SqliteEventStore.open(otherLog).close();
    const readModels = sqlitePath.replace(/\.db$/, '.read-models.db');
    for (const command of ['rebuild', 'verify'] as const) {
      const result = await runCommand(command, [], { SQLITE_PATH: otherLog, READ_MODEL_PATH: readModels });
      expect({ command, code: result.code, stdout: result.stdout }).toEqual({ command, code: 1, stdout: '' });
      expect(result.stderr).toContain(`the read model file ${readModels} is in use by another process`);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });
});
