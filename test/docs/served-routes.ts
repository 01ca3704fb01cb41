import type { FastifyInstance } from 'fastify';

export interface ServedRoute {
  method: string;
  /** Fastify's own path, e.g. `/v1/executions/:id(^[^:/]+)::cancel`. */
  url: string;
}

const TREE_GLYPHS = /^(?:[│ ] {3}|[├└]── )*/u;

/**
 * Every route Fastify serves, read back from `printRoutes()`: Nest's controllers, and any route
 * added straight on Fastify (docs, metrics), which Nest's own discovery would miss. Each line is
 * a tree node: four characters of indent per level, the node's path part, then its methods.
 */
export function servedRoutes(fastify: FastifyInstance): ServedRoute[] {
  const routes: ServedRoute[] = [];
  const parts: string[] = [];
  for (const line of fastify.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue;
    const indent = TREE_GLYPHS.exec(line)![0];
    const depth = [...indent].length / 4;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(indent.length))!;
    parts.length = depth;
    parts.push(match[1]);
    for (const method of match[2]?.split(', ') ?? []) routes.push({ method, url: parts.join('') });
  }
  return routes;
}

/** The OpenAPI path of a Fastify path: `:id(regex)` → `{id}`, and `::` (a literal colon) → `:`. */
export function openApiPath(url: string): string {
  return url
    .replace(/::/g, '\u0000')
    .replace(/:(\w+)(\([^)]*\))?/g, '{$1}')
    .replace(/\u0000/g, ':');
}
