import { nowIso } from '../../src/common/clock';
import { newId } from '../../src/common/ids';
import { EventStore } from '../../src/event-store/event-store';
import { decide } from '../../src/executions/domain/execution-decide';
import { fold } from '../../src/executions/domain/execution-state';
import { LoadedExecution, executionStream, toNewEvents } from '../../src/executions/execution-stream';

export interface QueueOptions {
  provider: string;
  conversationId?: string;
  text?: string;
  tenantId?: string;
  /** Recorded as the appending instance instead of this process, as a process that has since stopped. */
  instanceId?: string;
  /** The request's deadlines (docs/api.md#deadlines). */
  timeouts?: { timeoutMs?: number; actionTimeoutMs?: number };
  /** The request's token budget (docs/api.md#usage-and-budgets). */
  budget?: { maxTotalTokens: number };
}

/** Appends `run.queued` as the start handler does and returns the execution as the runner receives it. */
export async function queueExecution(
  store: EventStore,
  { provider, conversationId = 'c-1', text = 'hi', tenantId = 'default', instanceId, timeouts = {}, budget }: QueueOptions,
): Promise<LoadedExecution> {
  const id = newId();
  const data = {
    conversationId,
    provider,
    input: { text },
    requiredCapabilities: [],
    config: {},
    idempotencyKey: null,
    ...timeouts,
    ...(budget && { budget }),
  };
  const events = decide({ type: 'queue', data }, null);
  const occurredAt = nowIso();
  const news = toNewEvents(id, events, { tenantId, occurredAt }).map((e) => (instanceId ? { ...e, metadata: { ...e.metadata, instanceId } } : e));
  const { nextRevision } = await store.append(executionStream(id), news, 'no_stream');
  return {
    state: fold(
      events.map((e) => ({ ...e, sequence: 1, occurredAt })),
      id,
    )!,
    tenantId,
    owner: null,
    revision: nextRevision,
  };
}
