import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

export const DEFAULT_TENANT = 'default';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; one `default` tenant when auth is off. */
    tenantId?: string;
  }
}

/** The tenant the request acts for. */
export const Tenant = createParamDecorator(
  (_: unknown, context: ExecutionContext): string => context.switchToHttp().getRequest<FastifyRequest>().tenantId ?? DEFAULT_TENANT,
);
