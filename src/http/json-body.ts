import type { FastifyInstance } from 'fastify';

/**
 * §1 body rules at the Fastify level: only application/json bodies (any parameters), an empty
 * body reads as `{}`, and a body must be a JSON object. Everything else is answered by Fastify's
 * own 415 / 413 / 400 errors, which the exception filter renders as the binding's envelope.
 */
export function installJsonBody(fastify: FastifyInstance, bodyLimit: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(Object.assign(new SyntaxError((error as Error).message), { statusCode: 400 }), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(Object.assign(new SyntaxError('request body must be a JSON object'), { statusCode: 400 }), undefined);
    }
    done(null, parsed);
  });
  fastify.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) request.body = {};
  });
}
