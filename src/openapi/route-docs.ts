import { applyDecorators, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiErrorsIn, ErrorCase, ErrorCaseName } from './error-responses';

/**
 * Errors every `/v1` route can answer: a query parameter it does not take (400), auth (401, and
 * 503 when the OIDC keys cannot be fetched), a request that arrives too slowly (408) or with too
 * many header bytes (431), the rate limit (429) and a bug (500).
 */
const EVERY_ROUTE: ErrorCaseName[] = [
  'VALIDATION_ERROR',
  'UNAUTHENTICATED',
  'REQUEST_TIMEOUT',
  'HEADERS_TOO_LARGE',
  'RATE_LIMITED',
  'KEYS_UNAVAILABLE',
  'INTERNAL_ERROR',
];
/** And every route that reads a body: before any route check, 415 → 413 → 400 malformed JSON. */
const WITH_BODY: ErrorCaseName[] = ['UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

export interface RouteDocsOptions {
  tag: string;
  summary: string;
  description?: string;
  /** The route reads a JSON body. */
  body?: boolean;
  /** The route's own errors, beside the ones every route has. */
  errors?: ErrorCaseName[];
  /** Another error envelope than the binding's, with an example of a case in it. */
  envelope?: { type: Type; example: (error: ErrorCase) => unknown };
}

/** The operation, its tag and every error it can answer, so each route needs one decorator. */
export function RouteDocs(options: RouteDocsOptions): MethodDecorator {
  const errors = [...EVERY_ROUTE, ...(options.body ? WITH_BODY : []), ...(options.errors ?? [])];
  const errorDocs = options.envelope ? ApiErrorsIn(options.envelope.type, options.envelope.example, ...errors) : ApiErrors(...errors);
  return applyDecorators(ApiTags(options.tag), ApiOperation({ summary: options.summary, description: options.description }), errorDocs);
}
