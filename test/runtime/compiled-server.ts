import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startNodeFlags } from '../support/start-command';

/** The compiled server (`npm test` builds dist/ first), started the way a deployment starts it. */
export const ROOT = join(__dirname, '..', '..');
export const MAIN = join(ROOT, 'dist', 'main.js');
export const built = existsSync(MAIN);

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<Exit>;
  output: () => string;
  /** Standard output alone: the server's JSON log lines. */
  stdout: () => string;
}

const running = new Set<ChildProcess>();

/** SIGKILLs whatever a test left running (call from afterEach). */
export function killLeftovers(): void {
  for (const child of running) child.kill('SIGKILL');
}

/**
 * Spawns `command` (by default node with npm start's flags and dist/main.js) on PORT=0 and waits
 * for the line that says where it serves.
 */
export async function launch(
  env: Record<string, string>,
  command: { file: string; args: string[] } = { file: process.execPath, args: [...startNodeFlags(), MAIN] },
): Promise<ServerProcess> {
  const child = spawn(command.file, command.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  let stdout = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => ((output += chunk), (stdout += chunk)));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /serving on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1].replace(/\/$/, ''));
    };
    child.stdout!.on('data', look);
    void exited.then(({ code }) => reject(new Error(`server exited (${code}) before serving:\n${output}`)));
  });
  return { child, baseUrl, exited, output: () => output, stdout: () => stdout };
}

/** Resolves with the exit, or with null once `ms` have passed. */
export const exitWithin = (server: ServerProcess, ms: number): Promise<Exit | null> =>
  Promise.race([server.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref())]);
