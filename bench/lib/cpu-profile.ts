import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = resolve(__dirname, '..', '..');

/** The newest .cpuprofile in `dir`. */
export function newestProfile(dir: string): string | null {
  // CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile: thread 0 is the event loop; worker threads
  // (the SQLite writer, the schema checker) write profiles of their own, left out here.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
    .sort();
  return files.length ? join(dir, files[files.length - 1]) : null;
}

/** Top self-time functions of a V8 CPU profile, as printable lines. */
export function summarizeProfile(file: string, top = 25): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMicros = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    const where = frame.url ? `${relative(ROOT, frame.url.replace(/^file:\/\//, ''))}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    selfMicros.set(key, (selfMicros.get(key) ?? 0) + delta);
    total += delta;
  });
  const busy = total - (selfMicros.get('(idle)') ?? 0);
  const rows = [...selfMicros.entries()]
    .filter(([k]) => k !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  return [
    `profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`,
    ...rows.map(([key, us]) => `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${key}`),
  ];
}
