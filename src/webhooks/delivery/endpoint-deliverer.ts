import { Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { retryDelay } from '../../common/backoff';
import { INSTANCE_ID } from '../../common/instance-id';
import { EventStore, StoredEvent } from '../../event-store/event-store';
import { Processor, ProcessorBatch } from '../../event-store/processor';
import { DeliveryCursor, emptyCursor, foldCursor, liveSecrets, PendingAttempt, rewind, rotate, startingPoint } from '../domain/delivery-cursor';
import { nextAttemptDelay, parseRetryAfter, verdictOf } from '../domain/retry-schedule';
import {
  DeliveryAttemptedData,
  LeaseTakenData,
  ReplayRequestedData,
  SecretRotatedData,
  WEBHOOK_CONTROL_TYPES,
  WEBHOOK_DELETED,
  WEBHOOK_DELIVERY_ATTEMPTED,
  WEBHOOK_DISABLED,
  WEBHOOK_LEASE_TAKEN,
  WEBHOOK_REPLAY_REQUESTED,
  WEBHOOK_SECRET_ROTATED,
  webhookStream,
} from '../domain/webhook-events';
import { WebhookSettings } from '../webhook-settings';
import { OutcomeWriter } from './outcome-writer';
import { deliveryBody } from './delivery-body';
import { sendWebhook } from './send-webhook';
import { signatureHeader } from './signature';

/** What a deliverer reports as it goes: the metrics. */
export interface DeliveryObserver {
  attempted(outcome: DeliveryAttemptedData['outcome'], statusCode: number | null, durationMs: number): void;
}

/** The `webhook-id` of an event for an endpoint: the same on every attempt and replay, different per endpoint. */
export const deliveryIdOf = (webhookId: string, eventId: string) =>
  `msg_${createHash('sha256').update(`${webhookId}:${eventId}`).digest('base64url').slice(0, 27)}`;

const PAGE = 1000;

/**
 * Delivers one endpoint's events (docs/webhooks.md#delivery): follows the log from the checkpoint
 * its stream records, sends each matching event, records every attempt's outcome in that stream.
 * The events of one execution go one after another in sequence order; up to `maxInFlight`
 * executions go in parallel; `maxQueued` unsettled events hold the reading back.
 */
export class EndpointDeliverer {
  private readonly logger = new Logger('Webhooks');
  private readonly stopping = new AbortController();
  private cursor: DeliveryCursor = emptyCursor();
  private writer!: OutcomeWriter;
  /** Read and not yet settled: position → when the event occurred (ms). */
  private readonly unsettled = new Map<number, number>();
  private readonly queues = new Map<string, StoredEvent[]>();
  private readonly active = new Set<string>();
  private readonly ready: string[] = [];
  private readPosition = 0;
  private rewindTo: number | null = null;
  private processorStop: AbortController | null = null;
  private room: (() => void) | null = null;
  private readonly agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  /** Why it stopped: deleted, disabled, the lease went to another instance, or the app is stopping. */
  endReason: string | null = null;

  constructor(
    private readonly store: EventStore,
    readonly webhookId: string,
    readonly tenantId: string,
    private readonly settings: WebhookSettings,
    private readonly observer: DeliveryObserver,
    /** Several instances share the store: the stream's lease must name this one. */
    private readonly leased: boolean,
    private readonly onEnd: (deliverer: EndpointDeliverer) => void,
  ) {}

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /** Age in seconds of the oldest event read but not settled; 0 when none. */
  oldestPendingSeconds(now: number): number {
    let oldest = Infinity;
    for (const occurred of this.unsettled.values()) oldest = Math.min(oldest, occurred);
    return oldest === Infinity ? 0 : Math.max(0, (now - oldest) / 1000);
  }

  stop(reason: string): void {
    if (this.stopped) return;
    this.endReason = reason;
    this.stopping.abort();
    this.processorStop?.abort();
    this.room?.();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Folds the stream, then follows the log until stopped. */
  async run(): Promise<void> {
    const stream = webhookStream(this.webhookId);
    for (let after: number | undefined; ;) {
      const page = await this.store.readStream(stream, { after, limit: PAGE });
      for (const event of page) foldCursor(this.cursor, event);
      if (page.length < PAGE) break;
      after = page.at(-1)!.revision;
    }
    this.cursor = startingPoint(this.cursor);
    if (this.cursor.ended || !this.cursor.target) return this.end('ended');
    if (this.leased && this.cursor.leaseHolder !== INSTANCE_ID) return this.end(`lease taken by ${this.cursor.leaseHolder}`);
    this.writer = new OutcomeWriter(
      this.store,
      this.webhookId,
      this.tenantId,
      this.cursor.revision,
      this.stopping.signal,
      (holder) => this.stop(`lease taken by ${holder}`),
      this.logger,
    );
    this.logger.log(`webhook ${this.webhookId}: delivering from position ${this.cursor.checkpoint}`);
    let from = this.cursor.checkpoint;
    while (!this.stopped) {
      this.readPosition = from;
      this.processorStop = new AbortController();
      const processor = new Processor(this.store, {
        name: `Webhook ${this.webhookId}`,
        writes: `webhook ${this.webhookId} deliveries`,
        from,
        maxBatch: 500,
        filter: {
          tenantId: this.tenantId,
          streamPrefixes: ['execution-', stream],
          types: [...this.cursor.target.events, ...WEBHOOK_CONTROL_TYPES],
        },
        handle: (batch) => this.handle(batch),
      });
      await processor.run(this.processorStop.signal);
      if (this.rewindTo === null) break;
      from = this.rewindTo;
      this.rewindTo = null;
    }
    this.end(this.endReason ?? 'stopped');
  }

  private end(reason: string): void {
    this.stop(reason);
    this.onEnd(this);
  }

  private async handle({ events, position }: ProcessorBatch): Promise<void> {
    for (const event of events) {
      if (this.stopped || this.rewindTo !== null) return;
      if (event.streamId.startsWith('execution-')) this.enqueue(event);
      else this.control(event);
    }
    this.readPosition = Math.max(this.readPosition, position);
    while (this.unsettled.size >= this.settings.maxQueued && !this.stopped) await new Promise<void>((resolve) => (this.room = resolve));
  }

  private control(event: StoredEvent): void {
    switch (event.type) {
      case WEBHOOK_DELETED:
      case WEBHOOK_DISABLED:
        return this.stop(event.type === WEBHOOK_DELETED ? 'deleted' : 'disabled');
      case WEBHOOK_SECRET_ROTATED:
        this.cursor.secrets = rotate(this.cursor.secrets, event.data as unknown as SecretRotatedData);
        return;
      case WEBHOOK_LEASE_TAKEN: {
        if (event.position <= this.cursor.leaseAt) return;
        const holder = (event.data as unknown as LeaseTakenData).instanceId;
        if (holder !== INSTANCE_ID) this.stop(`lease taken by ${holder}`);
        return;
      }
      case WEBHOOK_REPLAY_REQUESTED: {
        if (event.position <= this.cursor.lastReplay) return;
        const { after } = event.data as unknown as ReplayRequestedData;
        this.rewindTo = Math.min(after, this.checkpoint());
        rewind(this.cursor, after, event.position);
        this.logger.log(`webhook ${this.webhookId}: replaying after position ${after}`);
        this.processorStop?.abort();
      }
    }
  }

  private enqueue(event: StoredEvent): void {
    if (this.unsettled.has(event.position) || this.cursor.settled.has(event.position)) return;
    this.unsettled.set(event.position, Date.parse(event.occurredAt));
    const executionId = event.streamId.slice('execution-'.length);
    const queue = this.queues.get(executionId);
    if (queue) return void queue.push(event);
    this.queues.set(executionId, [event]);
    this.ready.push(executionId);
    this.startReady();
  }

  private startReady(): void {
    while (this.ready.length > 0 && this.active.size < this.settings.maxInFlight && !this.stopped) {
      const executionId = this.ready.shift()!;
      this.active.add(executionId);
      void this.drain(executionId);
    }
  }

  /** One execution's events, each settled before the next is sent. */
  private async drain(executionId: string): Promise<void> {
    const queue = this.queues.get(executionId)!;
    try {
      while (queue.length > 0 && !this.stopped) {
        await this.deliver(queue[0]);
        if (this.stopped) return;
        queue.shift();
      }
    } catch (error) {
      this.logger.error(`webhook ${this.webhookId}: delivery stopped on an error: ${(error as Error).message}`, (error as Error).stack);
      this.stop('error');
    } finally {
      this.active.delete(executionId);
      if (!this.stopped) {
        this.queues.delete(executionId);
        this.startReady();
      }
    }
  }

  /** Every matching event at or below this is settled. */
  private checkpoint(): number {
    let lowest = Infinity;
    for (const position of this.unsettled.keys()) lowest = Math.min(lowest, position);
    return lowest === Infinity ? this.readPosition : Math.min(this.readPosition, lowest - 1);
  }

  private async deliver(event: StoredEvent): Promise<void> {
    const deliveryId = deliveryIdOf(this.webhookId, event.id);
    const resume: PendingAttempt | undefined = this.cursor.pending.get(event.position);
    this.cursor.pending.delete(event.position);
    let attempts = resume?.attempts ?? 0;
    let wait = resume ? (resume.nextAttemptAt ? Date.parse(resume.nextAttemptAt) - Date.now() : 0) : this.settings.retryScheduleMs[0];
    const body = deliveryBody(event);
    const url = new URL(this.cursor.target!.url);
    for (;;) {
      if (!(await retryDelay(Math.max(0, wait), this.stopping.signal))) return;
      attempts += 1;
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'webhook-id': deliveryId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(liveSecrets(this.cursor.secrets, Date.now()), deliveryId, timestamp, body),
      };
      const started = performance.now();
      const result = await sendWebhook(url, headers, body, {
        timeoutMs: this.settings.timeoutMs,
        allowPrivate: this.settings.allowPrivate,
        agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
      });
      const durationMs = Math.round(performance.now() - started);
      if (this.stopped) return;
      const verdict = verdictOf(result.statusCode);
      const retryAfter = result.statusCode === 429 || result.statusCode === 503 ? parseRetryAfter(result.retryAfter, Date.now()) : null;
      const delay = verdict === 'retry' ? nextAttemptDelay(this.settings.retryScheduleMs, attempts, retryAfter) : null;
      const outcome = verdict === 'delivered' ? 'delivered' : delay === null ? 'failed' : 'retrying';
      if (outcome !== 'retrying') this.unsettled.delete(event.position);
      const data: DeliveryAttemptedData = {
        deliveryId,
        position: event.position,
        eventType: event.type,
        executionId: event.streamId.slice('execution-'.length),
        sequence: event.revision + 1,
        attempt: attempts,
        outcome,
        statusCode: result.statusCode,
        error: result.error ?? (verdict === 'delivered' ? null : `answered ${result.statusCode}`),
        nextAttemptAt: delay === null ? null : new Date(Date.now() + delay).toISOString(),
        durationMs,
        checkpoint: this.checkpoint(),
        replay: this.cursor.lastReplay,
      };
      this.observer.attempted(outcome, result.statusCode, durationMs);
      this.logger.debug(`webhook ${this.webhookId} delivery ${deliveryId} attempt ${attempts}: ${outcome} (${result.statusCode ?? result.error})`);
      const stored = this.writer.write({
        type: WEBHOOK_DELIVERY_ATTEMPTED,
        data: data as unknown as Record<string, unknown>,
        occurredAt: new Date().toISOString(),
      });
      // The next event may go before this outcome is stored: outcomes are stored in order, and one lost to a crash is sent again.
      if (outcome !== 'delivered') await stored;
      if (outcome !== 'retrying') this.room?.();
      if (verdict === 'gone') {
        this.logger.warn(`webhook ${this.webhookId}: delivery ${deliveryId} answered 410 Gone, endpoint disabled`);
        await this.writer.write({ type: WEBHOOK_DISABLED, data: { reason: 'the receiver answered 410 Gone' }, occurredAt: new Date().toISOString() });
        this.stop('disabled');
      }
      if (outcome !== 'retrying') return;
      if (outcome === 'retrying' && attempts === 1)
        this.logger.log(`webhook ${this.webhookId} delivery ${deliveryId}: attempt failed (${data.error}), retrying`);
      wait = delay!;
    }
  }
}
