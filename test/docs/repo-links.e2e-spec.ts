import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Users of the project see only this repository: every relative link in README.md and docs/
 * must name a file inside it (never ../shared), and every #anchor into a Markdown file must
 * name one of its headings.
 */
const ROOT = resolve(__dirname, '..', '..');

function markdownFiles(): string[] {
  const found = [join(ROOT, 'README.md')];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  if (existsSync(join(ROOT, 'docs'))) walk(join(ROOT, 'docs'));
  return found;
}

/** Code is not prose: links inside fences and backticks are examples, not links. */
const withoutCode = (text: string) => text.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');

/** Inline links and images `[x](target "title")`, reference definitions `[x]: target`, and HTML href/src. */
function linkTargets(text: string): string[] {
  const prose = withoutCode(text);
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
    ...[...prose.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g)].map((m) => m[1]),
  ];
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutCode(markdown.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

describe('links in README.md and docs/', () => {
  const files = markdownFiles();

  it('finds the README and the API reference', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', join('docs', 'api.md')]));
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s links only to files inside the repository', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const problems: string[] = [];
    for (const target of linkTargets(text)) {
      if (isExternal(target)) continue;
      const [pathPart, anchor] = target.split('#', 2);
      const path = decodeURIComponent(pathPart.split('?')[0]);
      if (/(^|\/)\.\.\/shared\b|^\.\.\/shared\b/.test(path)) problems.push(`${target}: points into ../shared`);
      // A leading slash means the repository root, as GitHub reads it.
      const resolved = path === '' ? file : path.startsWith('/') ? join(ROOT, path) : resolve(dirname(file), path);
      const inside = relative(ROOT, resolved);
      if (inside.startsWith(`..${sep}`) || inside === '..') {
        problems.push(`${target}: leaves the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${target}: no such file`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor.toLowerCase())) {
        problems.push(`${target}: no heading #${anchor} in ${relative(ROOT, resolved)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('would catch the links it is there to catch', () => {
    expect(linkTargets('see [binding](../shared/protocol/http-binding.md)\n[x]: ../../etc\n`[no](code.md)`')).toEqual([
      '../shared/protocol/http-binding.md',
      '../../etc',
    ]);
    expect(anchorsOf('## The API in brief\n## `GET /v1/runtime`\n## Errors\n## Errors')).toEqual(
      new Set(['the-api-in-brief', 'get-v1runtime', 'errors', 'errors-1']),
    );
  });
});
