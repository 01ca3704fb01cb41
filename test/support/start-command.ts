import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The flags `npm start` gives node (package.json's `start`: `exec node <flags> dist/main.js`), so
 * the compiled-server tests and the benchmarks run the server exactly as a deployment does.
 */
export function startNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const match = /^exec node((?: --[a-z-]+(?:=\S+)?)*) dist\/main\.js$/.exec(start);
  if (!match) throw new Error(`package.json's start script is not "exec node [flags] dist/main.js": ${start}`);
  return match[1].split(' ').filter(Boolean);
}

/** The Dockerfile's CMD, as the array it lists. */
export function dockerfileCommand(): string[] {
  const line = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('CMD '));
  if (!line) throw new Error('the Dockerfile has no CMD');
  return JSON.parse(line.slice('CMD '.length)) as string[];
}
