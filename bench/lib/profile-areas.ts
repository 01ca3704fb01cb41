import { readFileSync } from 'node:fs';

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Which part of the system a frame belongs to: a folder of src (or dist), a package, Node itself, or a V8 pseudo-frame. */
function areaOf(url: string, name: string): string {
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return `package ${pkg[1]}`;
  const own = /\/(?:dist|src)\/([^/]+)\//.exec(path);
  if (own) return `src/${own[1]}`;
  if (path.startsWith('node:')) return 'node internals';
  if (!path) return name.startsWith('(') ? name : `native ${name || '(anonymous)'}`;
  return path;
}

/**
 * Self time of a V8 CPU profile summed per area, biggest first: where a process spends its CPU
 * at a glance. Native calls (a SQLite statement, a commit with its fsync) count where they are
 * called from when V8 attributes them to a JS frame, else as `native <name>`.
 */
export function summarizeAreas(file: string, top = 20): string[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const areas = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return;
    const area = areaOf(frame.url, frame.functionName);
    const delta = profile.timeDeltas[i] ?? 0;
    areas.set(area, (areas.get(area) ?? 0) + delta);
    busy += delta;
  });
  return [...areas.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([area, us]) => `  ${((us / busy) * 100).toFixed(1).padStart(5)}%  ${(us / 1e3).toFixed(0).padStart(6)} ms  ${area}`);
}
