import { routeTemplate } from './route-template';

describe('routeTemplate', () => {
  it("writes Fastify's patterns as the OpenAPI paths", () => {
    expect(routeTemplate('/v1/executions')).toBe('/v1/executions');
    expect(routeTemplate('/v1/executions/:id')).toBe('/v1/executions/{id}');
    expect(routeTemplate('/v1/executions/:id(^[^:/]+)::cancel')).toBe('/v1/executions/{id}:cancel');
    expect(routeTemplate('/v1/executions/:id/actions/:actionId(^[^:/]+)::respond')).toBe('/v1/executions/{id}/actions/{actionId}:respond');
    expect(routeTemplate('/v1/executions/:id/events')).toBe('/v1/executions/{id}/events');
  });
});
