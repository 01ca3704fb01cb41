import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startNodeFlags } from '../../test/support/start-command';
import { onExit } from './cleanup';
import { HttpClient } from './http-client';

const ROOT = resolve(__dirname, '..', '..');
/** BENCH_SERVER_MAIN points at another build's main.js (e.g. a copy of dist/ for an A/B run). */
const MAIN = process.env.BENCH_SERVER_MAIN ? resolve(process.env.BENCH_SERVER_MAIN) : join(ROOT, 'dist', 'main.js');

export interface ServerOptions {
  /** Write a V8 CPU profile (node --cpu-prof) of the server into this folder. */
  cpuProfileDir?: string;
  /** More environment for the server (e.g. SSE_MAX_STREAMS_PER_TENANT for many clients). */
  env?: Record<string, string>;
  /**
   * Run on this PostgreSQL database (EVENT_STORE=postgres) instead of a SQLite file. Read models
   * then go into this server's own temp folder: several servers on one database must not share them.
   */
  databaseUrl?: string;
}

/** A port the OS just handed out and released: free unless someone grabs it in between. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/** The compiled server (`node dist/main.js`) as a child process on a fresh SQLite file (or `databaseUrl`). */
export class ServerProcess {
  readonly client: HttpClient;
  private exited: Promise<number | null>;
  private stderr = '';
  private readonly removeCleanup: () => void;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly dir: string,
  ) {
    this.client = new HttpClient(baseUrl);
    this.exited = new Promise((ok) => child.once('exit', (code) => ok(code)));
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-8000);
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-8000);
    });
    // Synchronous last resort on exit / Ctrl-C / crash: kill the child, drop the temp folder.
    this.removeCleanup = onExit(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (!this.keepFiles) rmSync(dir, { recursive: true, force: true });
    });
  }

  /** stop({ keepFiles: true }) leaves the files for a baseline read of them; they go when the bench exits. */
  private keepFiles = false;

  get pid(): number {
    return this.child.pid!;
  }

  /** The server's event store file. */
  get sqlitePath(): string {
    return join(this.dir, 'runledger.db');
  }

  static async start(options: ServerOptions = {}): Promise<ServerProcess> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} not found: run "npm run build" first`);
    const dir = mkdtempSync(join(tmpdir(), 'runledger-bench-'));
    const port = await freePort();
    // npm start's flags, so the figures are the deployed server's; BENCH_SERVER_START_FLAGS
    // replaces them for an A/B run ("" for none).
    const startFlags = process.env.BENCH_SERVER_START_FLAGS;
    const nodeArgs: string[] = startFlags === undefined ? startNodeFlags() : startFlags.split(' ').filter(Boolean);
    if (options.cpuProfileDir) {
      mkdirSync(options.cpuProfileDir, { recursive: true });
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
    }
    // BENCH_SERVER_NODE_ARGS: more flags for the server's node (V8 heap sizes, say), for an A/B run.
    nodeArgs.push(...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []));
    const postgres = options.databaseUrl ? { EVENT_STORE: 'postgres', DATABASE_URL: options.databaseUrl, READ_MODEL_PATH: join(dir, 'read-models.db') } : {};
    const child = spawn(process.execPath, [...nodeArgs, MAIN], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SQLITE_PATH: join(dir, 'runledger.db'), LOG_LEVEL: 'warn', ...postgres, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const server = new ServerProcess(child, `http://127.0.0.1:${port}`, dir);
    await server.waitUntilReady();
    return server;
  }

  private async waitUntilReady(timeoutMs = 20000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exitCode: number | null | undefined;
    void this.exited.then((code) => (exitCode = code));
    while (Date.now() < deadline) {
      if (exitCode !== undefined) throw new Error(`server exited with code ${exitCode} before listening:\n${this.stderr}`);
      try {
        // The probe needs no key, so this works with API_KEYS set too.
        const response = await this.client.json('GET', '/health/live');
        if (response.status === 200) return;
      } catch {
        // Not listening yet.
      }
      await new Promise((ok) => setTimeout(ok, 50));
    }
    throw new Error(`server did not answer within ${timeoutMs} ms:\n${this.stderr}`);
  }

  /** Output the server wrote (warnings, errors), last 8 kB. */
  get output(): string {
    return this.stderr;
  }

  /** SIGTERM (a graceful close, which also lets --cpu-prof write its profile), SIGKILL after 10 s. */
  async stop(options: { keepFiles?: boolean } = {}): Promise<void> {
    if (options.keepFiles) {
      this.keepFiles = true;
      const dir = this.dir;
      onExit(() => rmSync(dir, { recursive: true, force: true }));
    }
    this.client.close();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10000);
      await this.exited;
      clearTimeout(timer);
    }
    this.removeCleanup();
  }
}
