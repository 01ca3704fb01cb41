import { ApiError } from './api-error';

/** The routes that answer errors in OpenAI's shape (docs/responses-api.md#errors). */
export const speaksOpenAiErrors = (url: string): boolean => /^\/v1\/responses(?:[/?]|$)/.test(url);

/** OpenAI's `error.type` for a status, so that its SDKs raise the typed error they raise for OpenAI. */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/**
 * `{ error: { message, type, code, param } }`: the binding's code as `code`, the body field the
 * refusal is about as `param` (when the thrower knew it), and `details` kept beside them.
 */
export function openAiErrorBody(error: ApiError): { error: Record<string, unknown> } {
  const { param, ...details } = error.details ?? {};
  return {
    error: {
      message: error.message,
      type: typeOf(error.status),
      code: error.code,
      param: typeof param === 'string' ? param : null,
      ...(Object.keys(details).length > 0 && { details }),
    },
  };
}
