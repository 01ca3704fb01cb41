import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The compiled commands (`npm test` builds dist/ first), run as real processes. */
export const ROOT = join(__dirname, '..', '..');
const DIST = join(ROOT, 'dist', 'cli');
export const COMMANDS = { export: 'export.js', rebuild: 'rebuild-projections.js', verify: 'verify-projections.js' } as const;
export const cliBuilt = Object.values(COMMANDS).every((file) => existsSync(join(DIST, file)));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only what the command needs: the test's files, nothing of this shell's configuration. */
export const cliEnv = (env: Record<string, string>): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NO_COLOR: '1',
  ...env,
});

/** Runs `file args…` to its exit, collecting stdout and stderr apart. */
export function run(file: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(file, args, { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs one compiled command: `node dist/cli/<file> args…`. */
export const runCommand = (command: keyof typeof COMMANDS, args: string[], env: Record<string, string>): Promise<CliResult> =>
  run(process.execPath, [join(DIST, COMMANDS[command]), ...args], env);

/** A suite that needs dist/cli: skipped, visibly, when it has not been built. */
export function describeCli(name: string, body: () => void): void {
  if (cliBuilt) return describe(name, body);
  process.stderr.write(`${name}: skipped, dist/cli is missing; run npm run build (npm test does)\n`);
  describe.skip(name, body);
}
