/**
 * A throw-away PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary directory,
 * started with `pg_ctl` on a free port (TCP on 127.0.0.1, its Unix socket in that directory),
 * stopped and deleted by `destroy()`. As root, the server runs as the `postgres` user (initdb
 * refuses root). Nothing outside the temporary directory is touched, so no state leaks between runs.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';

export interface ClusterOptions {
  /** fsync on or off (off by default: tests need no crash safety, and the 2 shared cores thank us). */
  fsync?: boolean;
  /** More `-c name=value` server settings. */
  settings?: Record<string, string | number>;
}

export interface PostgresCluster {
  port: number;
  dir: string;
  /** The `postgres` database as the `postgres` superuser, over TCP. */
  adminUrl: string;
  /** `pg_ctl stop` (fast: disconnects every client and shuts down cleanly). */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the server if it runs and deletes its directory; safe to call twice. */
  destroy(): Promise<void>;
  /** The same, synchronously, for a process `exit` hook. */
  destroySync(): void;
}

/** Where initdb and pg_ctl live: RUNLEDGER_PG_BIN, else the newest /usr/lib/postgresql/N/bin, else initdb on the PATH. */
export function findPostgresBinaries(): string | undefined {
  const has = (dir: string) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'));
  const configured = process.env.RUNLEDGER_PG_BIN;
  if (configured) return has(configured) ? configured : undefined;
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) if (has(join(root, version, 'bin'))) return join(root, version, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb'))) {
      const real = dirname(realpathSync(join(dir, 'initdb')));
      if (has(real)) return real;
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The command line that runs `bin/tool` as the server's user. */
function asServerUser(bin: string, tool: string, args: string[]): [string, string[]] {
  const path = join(bin, tool);
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
}

function run(bin: string, tool: string, args: string[]): Promise<string> {
  const [file, argv] = asServerUser(bin, tool, args);
  return new Promise((resolve, reject) => {
    execFile(file, argv, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${tool} failed: ${(stderr || stdout || error.message).trim().split('\n').slice(-3).join(' / ')}`));
      else resolve(stdout);
    });
  });
}

export async function startCluster(options: ClusterOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBinaries();
  if (!bin) throw new Error('no PostgreSQL binaries (initdb, pg_ctl) found; install postgresql-15 or set RUNLEDGER_PG_BIN');
  const dir = mkdtempSync(join(tmpdir(), 'runledger-pg-'));
  const data = join(dir, 'data');
  let port = 0;
  let running = false;
  const serverOptions = () => {
    const settings: Record<string, string | number> = {
      listen_addresses: '127.0.0.1',
      fsync: options.fsync ? 'on' : 'off',
      max_connections: 200,
      ...options.settings,
    };
    return [`-p ${port}`, `-k ${dir}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  };
  const start = async () => {
    await run(bin, 'pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', serverOptions(), 'start']);
    running = true;
  };
  const cluster: PostgresCluster = {
    get port() {
      return port;
    },
    dir,
    get adminUrl() {
      return `postgres://postgres@127.0.0.1:${port}/postgres`;
    },
    async stop(mode = 'fast') {
      await run(bin, 'pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    start,
    async destroy() {
      if (running) await cluster.stop('immediate').catch(() => undefined);
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
    destroySync() {
      if (running) {
        const [file, argv] = asServerUser(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        spawnSync(file, argv, { stdio: 'ignore', timeout: 30_000 });
      }
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    if (isRoot()) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(dir, uid, gid);
    }
    await run(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    // A free port can be taken between asking and binding: try another then.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await start();
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    return cluster;
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

/** A new, empty database in the cluster behind `adminUrl`; returns its URL. */
export async function createDatabase(adminUrl: string, label: string): Promise<string> {
  const name = `runledger_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
