import { createHash } from 'node:crypto';
import { IdempotencyConflictError } from '../../common/errors/request-errors';
import { canonicalJson } from '../../common/canonical-json';
import { nowIso } from '../../common/clock';
import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export const claimStream = (tenantId: string, key: string) => `idempotency-${tenantId}-${sha256(key)}`;

export interface ClaimedRequest {
  conversationId: string;
  provider: string;
  input: { text: string };
  requiredCapabilities: string[];
  config: Record<string, unknown>;
  idempotencyKey: string | null;
  /** As sent: EXECUTION_TIMEOUT_MS fills in a missing one only when run.queued is recorded. */
  timeoutMs?: number;
  actionTimeoutMs?: number;
  /** As sent; the conversation's default fills in a missing one only in run.queued. */
  concurrency?: ConcurrencyPolicy;
  /** Present when started through POST /v1/responses: that API's settings, echoed by every read of the response. */
  responses?: Record<string, unknown>;
  /** Left out when not set, in the hash too: keys claimed before budgets existed still match. */
  budget?: { maxTotalTokens: number };
}

/**
 * The parts of a request that make two requests "equivalent" (docs/api.md#idempotency): key order
 * and capability order ignored. A timeout left out is left out of the hash too, so keys claimed
 * before timeouts existed still match.
 */
export function requestHash(request: Omit<ClaimedRequest, 'idempotencyKey' | 'input'> & { input: unknown }): string {
  return sha256(
    canonicalJson({
      conversationId: request.conversationId,
      provider: request.provider,
      input: request.input,
      requiredCapabilities: [...new Set(request.requiredCapabilities)].sort(),
      config: request.config,
      ...(request.timeoutMs !== undefined && { timeoutMs: request.timeoutMs }),
      ...(request.actionTimeoutMs !== undefined && { actionTimeoutMs: request.actionTimeoutMs }),
      ...(request.concurrency !== undefined && { concurrency: request.concurrency }),
      ...(request.budget !== undefined && { budget: request.budget }),
    }),
  );
}

/**
 * Claims a tenant's idempotency key for an execution id (rule 3). The first claim on the key's
 * stream wins; a later equivalent request gets the winner's execution id, a different one 409.
 * The claim keeps the winner's request, so whoever ends up appending `run.queued` records the
 * winner's body exactly (equivalent requests may still differ in key or capability order).
 */
export async function claimKey(
  store: EventStore,
  tenantId: string,
  key: string,
  request: ClaimedRequest,
  candidateId: string,
): Promise<{ executionId: string; won: boolean; request: ClaimedRequest }> {
  const stream = claimStream(tenantId, key);
  const hash = requestHash(request);
  try {
    await store.append(
      stream,
      [
        {
          type: 'idempotency.claimed',
          data: { requestHash: hash, executionId: candidateId, request },
          occurredAt: nowIso(),
          metadata: { tenantId, schemaVersion: 1, correlationId: candidateId, causationId: null },
        },
      ],
      'no_stream',
    );
    return { executionId: candidateId, won: true, request };
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
  const [claim] = await store.readStream(stream, { limit: 1 });
  const claimed = claim.data as { requestHash: string; executionId: string; request?: ClaimedRequest };
  if (claimed.requestHash !== hash) {
    throw new IdempotencyConflictError('idempotencyKey was already used with a different request');
  }
  return { executionId: claimed.executionId, won: false, request: claimed.request ?? request };
}
