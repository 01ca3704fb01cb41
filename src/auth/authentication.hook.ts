import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger as Pino } from 'pino';
import { Authenticator } from './authenticator';

/**
 * Paths any caller may reach with auth on: the orchestrator's probes carry no key, and the API
 * document (with Swagger UI's files under /docs/) and the console's page and assets hold no tenant's data.
 */
const PUBLIC_PATHS = new Set<string>(['/health/live', '/health/ready', '/docs', '/metrics', '/console']);
const PUBLIC_PREFIXES = ['/docs/', '/console/'];

export const isPublic = (request: FastifyRequest) => {
  const path = request.url.split('?')[0];
  return PUBLIC_PATHS.has(path) || PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix));
};

/**
 * Sets `request.tenantId`, or refuses the request (its answer's headers come with the error, see
 * http/application-errors.ts). Shared by the onRequest hook and the framework-error handler, which
 * Fastify calls before any hook.
 */
export async function authenticate(authenticator: Authenticator, request: FastifyRequest): Promise<void> {
  if (!authenticator.enabled || isPublic(request)) return;
  request.tenantId = await authenticator.tenantOf(request.headers.authorization, request.ip, request.log as Pino);
}

/**
 * Authentication as the first onRequest hook (docs/api.md#conventions and
 * docs/api.md#authentication-and-tenants): it runs for unknown routes too, and before the body is
 * read, so 401 precedes 415, 413 and 400. CORS and security headers register before this (see
 * edge-headers.ts), so that preflights need no key and refusals carry their headers; the rate
 * limit after it, as it counts per tenant.
 */
export function installAuthentication(fastify: FastifyInstance, authenticator: Authenticator): void {
  fastify.decorateRequest('tenantId', undefined);
  if (!authenticator.enabled) return;
  fastify.addHook('onRequest', async (request) => authenticate(authenticator, request));
}
