import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
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
