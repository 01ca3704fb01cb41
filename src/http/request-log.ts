import { Logger } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';

/**
 * One line per request: server errors as errors, every other request at debug level
 * (LOG_LEVEL=debug), so an operator can follow a failing client without drowning in deltas.
 */
export function installRequestLog(fastify: FastifyInstance): void {
  const logger = new Logger('HTTP');
  fastify.addHook('onResponse', async (request, reply) => {
    const line = `${request.method} ${request.url} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)} ms`;
    // 503 is an outage the client is told to wait out (store, identity provider), logged with its cause.
    if (reply.statusCode === 503) logger.warn(line);
    else if (reply.statusCode >= 500) logger.error(line);
    else logger.debug(line);
  });
}
