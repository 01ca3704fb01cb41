import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ErrorEnvelope } from './error-envelope';

/** One reason a route can fail: its status, its code, and when (docs/api.md#errors). */
export interface ErrorCase {
  status: number;
  code: string;
  when: string;
}

/** Every error answer the API gives; routes name the ones that apply to them. */
export const ERROR_CASES = {
  VALIDATION_ERROR: {
    status: 400,
    code: 'VALIDATION_ERROR',
    when: 'the body, path or query fails validation (unknown, empty or repeated query parameters too), or the JSON is malformed',
  },
  UNAUTHENTICATED: { status: 401, code: 'UNAUTHENTICATED', when: 'auth is on and the bearer token is missing or not valid' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND', when: "the conversation or execution does not exist (or is another tenant's)" },
  PROVIDER_NOT_FOUND: { status: 404, code: 'PROVIDER_NOT_FOUND', when: 'no provider has this id' },
  ACTION_NOT_FOUND: { status: 404, code: 'ACTION_NOT_FOUND', when: 'the execution has no action with this id' },
  IDEMPOTENCY_CONFLICT: { status: 409, code: 'IDEMPOTENCY_CONFLICT', when: 'the idempotency key was used for a different request' },
  INVALID_STATE: { status: 409, code: 'INVALID_STATE', when: "the execution's state forbids the command" },
  ACTION_ALREADY_RESOLVED: { status: 409, code: 'ACTION_ALREADY_RESOLVED', when: 'the action already has an accepted answer' },
  REQUEST_TIMEOUT: { status: 408, code: 'VALIDATION_ERROR', when: 'the headers and body did not arrive within REQUEST_TIMEOUT_MS; the connection is closed' },
  HEADERS_TOO_LARGE: {
    status: 431,
    code: 'VALIDATION_ERROR',
    when: 'the request headers are over what Node accepts (16 KiB by default); answered before any route, and the connection is closed',
  },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', when: 'the body is over BODY_LIMIT_BYTES (or an action answer over MAX_EVENT_BYTES)' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'VALIDATION_ERROR', when: 'a non-empty body is not application/json' },
  CAPABILITY_UNSUPPORTED: {
    status: 422,
    code: 'CAPABILITY_UNSUPPORTED',
    when: 'a required capability is unsupported or absent; `details.capabilities` lists each with its level',
  },
  RATE_LIMITED: {
    status: 429,
    code: 'RATE_LIMITED',
    when: 'the tenant exceeded RATE_LIMIT_PER_MINUTE, SSE_MAX_STREAMS_PER_TENANT or (on a start) MAX_RUNNING_PER_TENANT, or the client address failed authentication more than AUTH_FAILURES_PER_MINUTE times',
  },
  QUOTA_EXCEEDED: {
    status: 429,
    code: 'QUOTA_EXCEEDED',
    when: "the tenant's month-to-date usage is at or over its TENANT_TOKEN_BUDGETS budget; `Retry-After` says when the month turns, `details` is `{ used, budget }`",
  },
  PROVIDER_ERROR: { status: 502, code: 'PROVIDER_ERROR', when: 'the provider failed synchronously inside the request' },
  STORE_UNAVAILABLE: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    when: 'the event store cannot take writes (or a read model cannot be read) right now; nothing was appended',
  },
  KEYS_UNAVAILABLE: { status: 503, code: 'SERVICE_UNAVAILABLE', when: "OIDC is on and the issuer's signing keys cannot be fetched" },
  NOT_READY: { status: 503, code: 'SERVICE_UNAVAILABLE', when: 'a readiness check failed; `details.failed` names them' },
  INTERNAL_ERROR: { status: 500, code: 'INTERNAL_ERROR', when: 'a bug; the message says nothing of internals' },
} satisfies Record<string, ErrorCase>;

export type ErrorCaseName = keyof typeof ERROR_CASES;

const HEADERS: Record<number, Record<string, HeaderObject>> = {
  401: { 'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge', schema: { type: 'string' } } },
  429: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
  503: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
};

/**
 * One documented response per status, in the error envelope, listing every code and reason the
 * route can answer with it, with an example of each.
 */
export function ApiErrors(...names: ErrorCaseName[]): MethodDecorator & ClassDecorator {
  return ApiErrorsIn(ErrorEnvelope, (c) => ({ error: { code: c.code, message: c.when } }), ...names);
}

/** The same, in another envelope: the OpenAI-shaped errors of /v1/responses (docs/responses-api.md#errors). */
export function ApiErrorsIn(envelope: Type, example: (error: ErrorCase) => unknown, ...names: ErrorCaseName[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, [ErrorCaseName, ErrorCase][]>();
  for (const name of new Set(names)) {
    const error: ErrorCase = ERROR_CASES[name];
    byStatus.set(error.status, [...(byStatus.get(error.status) ?? []), [name, error]]);
  }
  return applyDecorators(
    ApiExtraModels(envelope),
    ...[...byStatus].map(([status, cases]) =>
      ApiResponse({
        status,
        description: cases.map(([, c]) => `\`${c.code}\`: ${c.when}`).join('; '),
        headers: HEADERS[status],
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(envelope) },
            examples: Object.fromEntries(cases.map(([name, c]) => [name, { summary: c.when, value: example(c) }])),
          },
        },
      }),
    ),
  );
}
