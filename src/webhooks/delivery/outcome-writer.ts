import { Logger } from '@nestjs/common';
import { backoff, retryDelay } from '../../common/backoff';
import { INSTANCE_ID } from '../../common/instance-id';
import { newId } from '../../common/ids';
import { EventStore, NewEvent, StoreUnavailableError, WrongExpectedRevisionError } from '../../event-store/event-store';
import { LeaseTakenData, WEBHOOK_LEASE_TAKEN, webhookStream } from '../domain/webhook-events';

export const WEBHOOK_SCHEMA_VERSION = 1;

export interface Outcome {
  type: string;
  data: Record<string, unknown>;
  occurredAt: string;
}

/**
 * Appends a deliverer's outcomes to the endpoint's stream, in order, what queued during one
 * append going in the next. Each append expects the revision last seen: another instance's
 * `webhook.lease_taken` in between makes it fail, which is how a holder that lapsed learns it
 * lost the endpoint (docs/webhooks.md#several-instances) and stops before writing anything more.
 */
export class OutcomeWriter {
  private queue: { outcome: Outcome; done: () => void }[] = [];
  private flushing = false;

  constructor(
    private readonly store: EventStore,
    private readonly webhookId: string,
    private readonly tenantId: string,
    private revision: number | null,
    private readonly signal: AbortSignal,
    private readonly onLeaseLost: (holder: string) => void,
    private readonly logger: Logger,
  ) {}

  /** Resolves once stored (or never, when the deliverer stops first: its attempt is then made again). */
  write(outcome: Outcome): Promise<void> {
    return new Promise((done) => {
      this.queue.push({ outcome, done });
      if (this.flushing) return;
      // Set and cleared synchronously: a write made while the last append resolves is not stranded.
      this.flushing = true;
      void this.flush().catch((error: Error) => this.logger.error(`webhook ${this.webhookId}: outcomes not stored: ${error.message}`, error.stack));
    });
  }

  /** Clears `flushing` in the same turn as its last look at the queue, so no write is stranded. */
  private async flush(): Promise<void> {
    try {
      for (let failures = 1; this.queue.length > 0 && !this.signal.aborted;) {
        const batch = this.queue.slice();
        try {
          const result = await this.store.append(
            webhookStream(this.webhookId),
            batch.map(({ outcome }) => this.toEvent(outcome)),
            this.revision ?? 'no_stream',
          );
          this.revision = result.nextRevision;
          this.queue = this.queue.slice(batch.length);
          for (const item of batch) item.done();
          failures = 1;
        } catch (error) {
          if (error instanceof WrongExpectedRevisionError) {
            if (await this.catchUp()) continue;
            return;
          }
          if (!(error instanceof StoreUnavailableError)) throw error;
          this.logger.warn(`webhook ${this.webhookId}: outcomes not stored, retrying: ${error.message}`);
          if (!(await retryDelay(backoff(failures++), this.signal))) return;
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private toEvent(outcome: Outcome): NewEvent {
    return {
      id: newId(),
      type: outcome.type,
      data: outcome.data,
      occurredAt: outcome.occurredAt,
      metadata: { tenantId: this.tenantId, schemaVersion: WEBHOOK_SCHEMA_VERSION, correlationId: this.webhookId, causationId: null, instanceId: INSTANCE_ID },
    };
  }

  /** Reads what others appended since; false when one of them took the lease. */
  private async catchUp(): Promise<boolean> {
    const newer = await this.store.readStream(webhookStream(this.webhookId), this.revision === null ? {} : { after: this.revision });
    for (const event of newer) {
      this.revision = event.revision;
      const holder = event.type === WEBHOOK_LEASE_TAKEN ? (event.data as unknown as LeaseTakenData).instanceId : null;
      if (holder !== null && holder !== INSTANCE_ID) {
        this.onLeaseLost(holder);
        return false;
      }
    }
    return true;
  }
}
