import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { requestLogOf, type RequestLog } from '../observability/request-context';

/** The request's log context (request-log.ts opens one for every request), for what it starts to log on. */
export const CurrentRequestLog = createParamDecorator((_: unknown, context: ExecutionContext): RequestLog | undefined =>
  requestLogOf(context.switchToHttp().getRequest<FastifyRequest>().raw),
);
