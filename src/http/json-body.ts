import { errorCodes, type FastifyInstance } from 'fastify';
import { vouchFreeOfPollutingKeys } from '../common/validation';
import { holdsUnicodeEscape, nestingProblem, unicodeProblem } from './json-body-bounds';

/** A key the validation pipe strips (common/validation.ts), as it must be written without escapes. */
const POLLUTING_KEY_TEXT = /"(?:__proto__|constructor|prototype)"/;

/**
 * The body rules of docs/api.md#conventions at the Fastify level: only application/json bodies (any parameters), an empty
 * body (of any declared type) reads as `{}`, and a body must be a JSON object. Everything else is
 * answered by Fastify's own 415 / 413 / 400 errors, which the exception filter renders as the
 * binding's envelope. Here too, so that every route has them: no nesting deeper than
 * MAX_JSON_DEPTH and no text that is not well-formed Unicode (json-body-bounds.ts), both 400.
 */
export function installJsonBody(fastify: FastifyInstance, bodyLimit: number, maxDepth: number): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, {});
    const tooDeep = nestingProblem(text, maxDepth);
    if (tooDeep) return done(tooDeep, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return done(Object.assign(new SyntaxError((error as Error).message), { statusCode: 400 }), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return done(Object.assign(new SyntaxError('request body must be a JSON object'), { statusCode: 400 }), undefined);
    }
    // Both walks of the parsed value are needed only when an escape may hide what the text shows.
    if (holdsUnicodeEscape(text)) {
      const illFormed = unicodeProblem(parsed);
      if (illFormed) return done(illFormed, undefined);
    } else if (!POLLUTING_KEY_TEXT.test(text)) vouchFreeOfPollutingKeys(parsed);
    done(null, parsed);
  });
  // Only a *non-empty* body that is not JSON is a 415: an empty one reads as `{}` whatever its
  // declared type. Decided on the first byte, before reading on, so 415 still precedes 413.
  fastify.addContentTypeParser('*', (request, payload, done) => {
    // An unknown route answers 404 whatever its body, as Fastify does without this parser.
    if (request.is404) return done(null, undefined);
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      done(error, error ? undefined : {});
    };
    payload.on('data', (chunk: Buffer | string) => {
      if (chunk.length > 0) settle(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE());
    });
    payload.on('end', () => settle(null));
    payload.on('error', settle);
  });
  fastify.addHook('preValidation', async (request) => {
    if (request.body === undefined || request.body === null) request.body = {};
  });
}
