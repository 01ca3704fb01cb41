import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { validationError } from './api-error';

const ALLOWED_QUERY = 'runledger:allowedQuery';

/** Names the query parameters a route accepts; every other route accepts none. */
export const AllowQuery = (...names: string[]) => SetMetadata(ALLOWED_QUERY, names);

/** Unknown, empty or repeated query parameters are a 400 on every route (docs/api.md#conventions). */
@Injectable()
export class StrictQueryGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const allowed = this.reflector.get<string[] | undefined>(ALLOWED_QUERY, context.getHandler()) ?? [];
    const query = (context.switchToHttp().getRequest<FastifyRequest>().query ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) {
      if (!allowed.includes(name)) throw validationError(`query parameter ${name} is not allowed here`);
      if (Array.isArray(value)) throw validationError(`query parameter ${name} must not be repeated`);
      if (value === '') throw validationError(`query parameter ${name} must not be empty`);
    }
    return true;
  }
}

/** A query value that must be an integer within a range, or absent. */
export function integerParam(value: unknown, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw validationError(
      max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}` : `${name} must be an integer from ${min} to ${max}`,
    );
  }
  return Number(value);
}
