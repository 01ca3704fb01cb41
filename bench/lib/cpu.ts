import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU seconds (user + system) a process has used so far, read from /proc/<pid>/stat. */
export const processCpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/stat`);

/** The same for the process's main thread alone (a Node server's event loop). */
export const mainThreadCpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/task/${pid}/stat`);

function statCpuSeconds(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // The command name (field 2) may contain spaces; the fields after its closing ')' do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]); // field 14
  const stime = Number(fields[12]); // field 15
  return (utime + stime) / clockTicks();
}

/** CPU seconds this (bench) process has used so far. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Measures CPU of the server (via /proc) and of this process over one wall-clock window. */
export class CpuWindow {
  private readonly startWall = performance.now();
  private readonly startServer: number;
  private readonly startOwn = ownCpuSeconds();

  constructor(private readonly serverPid: number) {
    this.startServer = processCpuSeconds(serverPid);
  }

  stop(): { wallSeconds: number; serverCpuSeconds: number; benchCpuSeconds: number } {
    return {
      wallSeconds: (performance.now() - this.startWall) / 1000,
      serverCpuSeconds: processCpuSeconds(this.serverPid) - this.startServer,
      benchCpuSeconds: ownCpuSeconds() - this.startOwn,
    };
  }
}

/**
 * CPU seconds a process and its direct children have used, e.g. a PostgreSQL postmaster and its
 * backends. Children that already ended count through the parent's cutime/cstime (fields 16–17),
 * so backends that come and go between two readings are not lost.
 */
export function processTreeCpuSeconds(pid: number): number {
  const fieldsOf = (p: number | string) => {
    const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  };
  const own = fieldsOf(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = fieldsOf(entry);
      if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]); // field 4 is the parent
    } catch {
      // Ended while we looked: its time is in the parent's cutime by now.
    }
  }
  return ticks / clockTicks();
}
