/**
 * A Fastify route pattern as the OpenAPI document writes its path: `/v1/executions/:id(^[^:/]+)::cancel`
 * is `/v1/executions/{id}:cancel`. Spans (`http.route`) and the metrics' `route` label use it, so a
 * trace, a series and the API reference name a route alike.
 */
export function routeTemplate(pattern: string): string {
  return pattern
    .replace(/\([^)]*\)/g, '')
    .split('::')
    .map((part) => part.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}'))
    .join(':');
}
