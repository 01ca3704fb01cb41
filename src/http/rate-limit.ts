import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isPublic } from '../auth/authentication.hook';
import { ApiError } from './api-error';
import { DEFAULT_TENANT } from './tenant.decorator';

const tenantOf = (request: FastifyRequest): string => request.tenantId ?? DEFAULT_TENANT;

/**
 * RATE_LIMIT_PER_MINUTE requests per tenant per minute (`RATE_LIMITED`, docs/api.md#errors), counted by
 * `@fastify/rate-limit` in this process. It runs as an onRequest hook on every route, unknown
 * ones too, right after authentication has named the tenant — so one tenant's burst never uses
 * up another's allowance. The probes, the metrics and the API document are not limited. The 429
 * carries Retry-After (and the X-RateLimit-* headers every limited answer carries), and goes out
 * through the exception filter like any error, so the body drain holds it until the upload ends.
 */
export function installRateLimit(fastify: FastifyInstance, perMinute: number | null): void {
  if (perMinute === null) return;
  void fastify.register(
    fp(async (instance) => {
      await instance.register(rateLimit, {
        global: false,
        max: perMinute,
        timeWindow: 60_000,
        keyGenerator: tenantOf,
        allowList: (request) => isPublic(request),
        errorResponseBuilder: (_request, context) =>
          new ApiError('RATE_LIMITED', `over the limit of ${context.max} requests per minute; retry in ${context.after}`),
      });
      instance.addHook('onRequest', instance.rateLimit());
    }),
  );
}
