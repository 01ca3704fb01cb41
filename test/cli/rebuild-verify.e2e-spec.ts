import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { startApp, tempSqlitePath } from '../support/app-harness';
import { describeCli, runCommand } from './cli-process';
import { populate, snapshot } from './read-model-fixture';

/**
 * projections:rebuild and projections:verify as processes on the files a stopped server left:
 * a rebuild answers the API exactly as before, verify finds no drift in it, and a tampered row is
 * named with its projection, key and column.
 */
describeCli('projections:rebuild and projections:verify (compiled commands, real files)', () => {
  const sqlitePath = tempSqlitePath();
  const readModelPath = sqlitePath.replace(/\.db$/, '.read-models.db');
  const env = { SQLITE_PATH: sqlitePath };
  let ids: Awaited<ReturnType<typeof populate>>;
  let before: string[];

  const apiAfterRestart = async () => {
    const app = await startApp({ sqlitePath });
    try {
      return await snapshot(app.baseUrl, ids);
    } finally {
      await app.close();
    }
  };

  const verify = async () => runCommand('verify', [], env);

  beforeAll(async () => {
    const app = await startApp({ sqlitePath });
    try {
      ids = await populate(app.baseUrl);
      before = await snapshot(app.baseUrl, ids);
    } finally {
      await app.close();
    }
  });

  afterAll(() => rmSync(dirname(sqlitePath), { recursive: true, force: true }));

  it('the live read models show no drift', async () => {
    const result = await verify();
    // Rows count every table of the projection: 5 executions, each with its execution_progress and execution_requests rows.
    expect(result.stdout).toMatch(
      /^executions: ok \(checkpoint \d+, 15 rows\)\nactions: ok .*\nartifacts: ok .*\nconversations: ok .*\nusage: ok .*\nno drift\n$/,
    );
    expect(result.code).toBe(0);
  });

  it('a full rebuild reports its progress, then verify finds no drift and the API answers the same', async () => {
    const rebuild = await runCommand('rebuild', [], env);
    expect(rebuild.code).toBe(0);
    expect(rebuild.stdout).toBe('');
    expect(rebuild.stderr).toMatch(/rebuild \[=+\] 100% \| \d+\/\d+ events \| [\d,]+ events\/s/);
    expect(rebuild.stderr).toMatch(/rebuilt executions, actions, artifacts, conversations, usage from \d+ events/);
    const result = await verify();
    expect(result.stdout).toMatch(/no drift\n$/);
    expect(result.code).toBe(0);
    expect(await apiAfterRestart()).toEqual(before);
  });

  it('a tampered row is drift: verify exits 1 naming the projection, the row and the column', async () => {
    const db = new Database(readModelPath);
    db.prepare("UPDATE executions SET output_text = 'tampered' WHERE id = ?").run(ids.executions[0]);
    db.close();
    const result = await verify();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('executions: DRIFT');
    expect(result.stdout).toContain(`1 row(s) differ: id="${ids.executions[0]}" (output_text)`);
    expect(result.stdout).toMatch(/actions: ok[^]*artifacts: ok[^]*conversations: ok/);
    expect(result.stdout).toMatch(/drift in executions\n$/);
  });

  it('rebuilding only the drifted projection repairs it; a missing row is named too', async () => {
    const rebuild = await runCommand('rebuild', ['--name', 'executions'], env);
    expect(rebuild.code).toBe(0);
    expect(rebuild.stderr).toMatch(/rebuilt executions from/);
    expect((await verify()).code).toBe(0);
    expect(await apiAfterRestart()).toEqual(before);

    const db = new Database(readModelPath);
    db.prepare('DELETE FROM conversations WHERE id = ?').run(ids.conversations[1]);
    db.close();
    const result = await verify();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`1 row(s) missing from the live read model: id="${ids.conversations[1]}"`);
    expect(result.stdout).toMatch(/drift in conversations\n$/);
    expect((await runCommand('rebuild', ['--name', 'conversations'], env)).code).toBe(0);
    expect((await verify()).code).toBe(0);
  });

  it('an unknown projection name is refused with the known names', async () => {
    const result = await runCommand('rebuild', ['--name', 'nope'], env);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toContain('no projection named "nope"; there are executions, actions, artifacts, conversations, usage');
  });
});
