import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { onExit } from './cleanup';
import { freePort } from './server';

export interface BareServer {
  baseUrl: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bare-fastify-server.ts as a child process; answers its base URL and a stop function. */
export const startBareFastify = (): Promise<BareServer> => startBareServer('bare-fastify-server.ts');

/** Starts bare-sse-server.ts (node:http, scripted runs over SSE) as a child process. */
export const startBareSse = (): Promise<BareServer> => startBareServer('bare-sse-server.ts');

async function startBareServer(script: string): Promise<BareServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, script)], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const remove = onExit(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise((ok) => child.once('exit', ok));
  await new Promise<void>((ok, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && ok());
    void exited.then(() => fail(new Error(`${script} exited before listening`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      remove();
    },
  };
}
