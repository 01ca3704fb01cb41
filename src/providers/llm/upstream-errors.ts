/**
 * What an upstream failure may say about itself in a run.failed message: the HTTP status, the
 * API's error type and a network error code — short enumerations. Never the SDK's own message
 * or the body: those can quote the request, and some APIs echo part of a rejected key.
 */

type Loose = { status?: unknown; headers?: unknown; type?: unknown; code?: unknown; errorCode?: unknown; error?: unknown; cause?: unknown; name?: unknown };

const SAFE_TOKEN = /^[A-Za-z0-9_.-]{1,64}$/;
const safe = (v: unknown): string | null => (typeof v === 'string' && SAFE_TOKEN.test(v) ? v : null);

/** The upstream HTTP status of an SDK error, when it has one. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as Loose | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** 429 and 5xx are worth another try (when nothing was emitted yet). */
export const isRetryableStatus = (status: number | undefined): boolean => status !== undefined && (status === 429 || (status >= 500 && status <= 599));

/** Retry-After (seconds or an HTTP date) or OpenAI's retry-after-ms, in ms; null when absent. */
export function retryAfterMs(error: unknown, now = Date.now()): number | null {
  const headers = (error as Loose | null)?.headers;
  if (!(headers instanceof Headers)) return null;
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The API's error type (`rate_limit_error`, `server_error`, …) from the SDK error or its body. */
function errorType(error: Loose): string | null {
  const body = error.error as Loose | undefined;
  const nested = (body?.error ?? body) as Loose | undefined;
  // The most specific first: OpenAI's `code` (invalid_api_key) over its `type` (invalid_request_error).
  return safe(error.code) ?? safe(error.errorCode) ?? safe(nested?.code) ?? safe(error.type) ?? safe(nested?.type);
}

/** A system error code (ECONNREFUSED, UND_ERR_SOCKET, …) somewhere down the cause chain. */
function networkCode(error: unknown): string | null {
  for (let e = error as Loose | undefined, depth = 0; e && depth < 5; e = e.cause as Loose | undefined, depth++) {
    if (typeof e.code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(e.code)) return e.code;
  }
  return null;
}

/** The run.failed message for an upstream failure, e.g. `upstream answered HTTP 503 (server_error)`. */
export function describeUpstreamError(error: unknown): string {
  const loose = (error ?? {}) as Loose;
  const status = statusOf(error);
  const type = errorType(loose);
  const detail = type ? ` (${type})` : '';
  if (status !== undefined) return `upstream answered HTTP ${status}${detail}`;
  // The SDKs' error classes leave `name` as "Error": their class names tell them apart.
  const name = safe((error as object | null)?.constructor?.name) ?? safe(loose.name) ?? 'Error';
  if (name === 'APIError') return `upstream reported an error in its stream${detail}`;
  const code = networkCode(error);
  if (name === 'APIConnectionTimeoutError') return 'upstream did not answer in time';
  if (name === 'APIConnectionError') return `could not reach upstream${code ? ` (${code})` : ''}`;
  if (code) return `upstream connection failed (${code})`;
  if (error instanceof SyntaxError) return 'upstream sent a chunk that is not valid JSON';
  return `upstream request failed (${name})`;
}
