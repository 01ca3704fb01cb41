/**
 * Every failure the server answers, as one class: `code`, `status`, `message` and `details` are the
 * error envelope's (docs/api.md#errors), so callers branch on `code` rather than on the status.
 * Failures that never reached the server (a refused connection) are `NETWORK_ERROR` with status 0.
 */
export class RunledgerError extends Error {
  override readonly name = 'RunledgerError';

  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** From the answer's `Retry-After`, in milliseconds, when it had one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }

  /** A failure the same request may succeed after: the store was unavailable, the caller was throttled, the network dropped. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

/** Reads an error answer, whatever its body: the envelope when there is one, the status otherwise. */
export async function errorFrom(response: Response): Promise<RunledgerError> {
  const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {};
      return new RunledgerError(error.code, response.status, error.message, details, retryAfterMs);
    }
  } catch {
    // Not JSON (a proxy's page, say): the status is all there is to go on.
  }
  return new RunledgerError('HTTP_ERROR', response.status, `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, {}, retryAfterMs);
}

/** `Retry-After` is seconds or an HTTP date (RFC 9110, section 10.2.3). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
