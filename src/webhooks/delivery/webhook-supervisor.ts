import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { INSTANCE_ID } from '../../common/instance-id';
import { newId } from '../../common/ids';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore, StoredEvent } from '../../event-store/event-store';
import { Processor } from '../../event-store/processor';
import { Metrics } from '../../metrics/metrics';
import {
  LeaseTakenData,
  WEBHOOK_CREATED,
  WEBHOOK_DELETED,
  WEBHOOK_DISABLED,
  WEBHOOK_LEASE_TAKEN,
  WEBHOOK_STREAM_PREFIX,
  webhookIdOf,
  webhookStream,
} from '../domain/webhook-events';
import { EndpointDeliverer } from './endpoint-deliverer';
import { WEBHOOK_SCHEMA_VERSION } from './outcome-writer';

interface Endpoint {
  tenantId: string;
  enabled: boolean;
  holder: string | null;
  /** The stream's last revision this follower has read: a lease is taken expecting it. */
  revision: number;
}

/**
 * Runs a deliverer for every enabled endpoint this instance holds (docs/webhooks.md#several-instances).
 * It follows the endpoints' definitions and leases through the log; on a store several instances
 * share, an endpoint whose holder is not alive (by the heartbeats of docs/operations.md) is taken
 * with a `webhook.lease_taken` appended at the revision seen, so exactly one instance wins it.
 * On SQLite this process is the only one: it delivers every endpoint.
 */
@Injectable()
export class WebhookSupervisor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly running = new Map<string, EndpointDeliverer>();
  private readonly stopping = new AbortController();
  private follower: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reconciling = false;
  /** A deliverer stopped here since the last reconcile: the next batch, checkpoints alone too, reconciles. */
  private stoppedHere = false;
  private readonly runs = new Set<Promise<void>>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'webhooks' | 'heartbeatIntervalMs' | 'heartbeatLapseMs'>,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.metrics.sources.webhookOldestPending = () =>
      [...this.running.values()].map((d) => ({ webhook: d.webhookId, seconds: d.oldestPendingSeconds(Date.now()) }));
    const processor = new Processor(this.store, {
      name: 'Webhooks',
      writes: 'the webhook endpoints',
      from: 0,
      // Every event of the webhook streams, outcomes too: a lease is taken at the revision the decision saw.
      filter: { streamPrefixes: [WEBHOOK_STREAM_PREFIX] },
      handle: ({ events }) => {
        // A batch of checkpoints alone changes no endpoint: reconciling on each one asked the
        // database who is alive once per commit anywhere (the heartbeat timer covers instances
        // stopping). A deliverer that stopped here is restarted at the next batch, as before.
        if (events.length === 0 && !this.stoppedHere) return;
        for (const event of events) this.apply(event);
        void this.reconcile();
      },
    });
    this.follower = processor.run(this.stopping.signal);
    if (this.store.instances) {
      this.timer = setInterval(() => void this.reconcile(), this.config.heartbeatIntervalMs);
      this.timer.unref();
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    if (this.timer) clearInterval(this.timer);
    for (const deliverer of this.running.values()) deliverer.stop('shutting down');
    await this.follower;
    // An HTTP attempt in flight is abandoned: its event is sent again after the restart.
    await Promise.all(this.runs);
  }

  private apply(event: StoredEvent): void {
    const id = webhookIdOf(event.streamId);
    if (event.type === WEBHOOK_CREATED) this.endpoints.set(id, { tenantId: event.metadata.tenantId, enabled: true, holder: null, revision: 0 });
    const endpoint = this.endpoints.get(id);
    if (!endpoint) return;
    endpoint.revision = Math.max(endpoint.revision, event.revision);
    if (event.type === WEBHOOK_DELETED || event.type === WEBHOOK_DISABLED) endpoint.enabled = false;
    if (event.type === WEBHOOK_LEASE_TAKEN) endpoint.holder = (event.data as unknown as LeaseTakenData).instanceId;
    const deliverer = this.running.get(id);
    if (deliverer && !endpoint.enabled) deliverer.stop(event.type === WEBHOOK_DELETED ? 'deleted' : 'disabled');
    if (deliverer && endpoint.holder !== null && endpoint.holder !== INSTANCE_ID) deliverer.stop(`lease taken by ${endpoint.holder}`);
  }

  /** Starts what this instance holds, takes what no live instance holds. */
  private async reconcile(): Promise<void> {
    if (this.reconciling || this.stopping.signal.aborted) return;
    this.stoppedHere = false;
    // Every endpoint delivered here or switched off (a delivery's outcome event, most often): no one to ask about.
    if (!this.anyWithoutDeliverer()) return;
    this.reconciling = true;
    try {
      const registry = this.store.instances;
      const alive = registry ? await registry.alive(this.config.heartbeatLapseMs) : null;
      for (const [id, endpoint] of this.endpoints) {
        if (!endpoint.enabled || this.running.has(id) || this.stopping.signal.aborted) continue;
        if (alive && endpoint.holder !== INSTANCE_ID) {
          if (endpoint.holder !== null && alive.has(endpoint.holder)) continue;
          if (!(await this.takeLease(id, endpoint))) continue;
        }
        this.start(id, endpoint);
      }
    } catch (error) {
      this.logger.warn(`webhook endpoints not reconciled, trying again: ${(error as Error).message}`);
    } finally {
      this.reconciling = false;
    }
  }

  /** Some switched-on endpoint has no deliverer here (the loop in `reconcile` checks each again after its awaits). */
  private anyWithoutDeliverer(): boolean {
    for (const [id, endpoint] of this.endpoints) if (endpoint.enabled && !this.running.has(id)) return true;
    return false;
  }

  private async takeLease(id: string, endpoint: Endpoint): Promise<boolean> {
    // Expecting the revision the holder was judged at: a lease (or an outcome of a live holder)
    // appended since, even one this follower has not read yet, makes the append fail.
    const head = endpoint.revision;
    try {
      await this.store.append(
        webhookStream(id),
        [
          {
            id: newId(),
            type: WEBHOOK_LEASE_TAKEN,
            data: { instanceId: INSTANCE_ID },
            metadata: { tenantId: endpoint.tenantId, schemaVersion: WEBHOOK_SCHEMA_VERSION, correlationId: id, causationId: null, instanceId: INSTANCE_ID },
          },
        ],
        head,
      );
    } catch {
      // Another instance (or an outcome of the lapsed holder) came first: look again next round.
      return false;
    }
    endpoint.holder = INSTANCE_ID;
    this.logger.log(`webhook ${id}: lease taken by this instance (${INSTANCE_ID})`);
    return true;
  }

  private start(id: string, endpoint: Endpoint): void {
    const deliverer = new EndpointDeliverer(
      this.store,
      id,
      endpoint.tenantId,
      this.config.webhooks,
      {
        attempted: (outcome, statusCode, durationMs) => {
          this.metrics.webhookAttempts.inc({ outcome, status: statusCode === null ? 'none' : String(statusCode) });
          this.metrics.webhookAttemptDuration.observe(durationMs / 1000);
        },
      },
      this.store.instances !== null,
      (ended) => {
        if (this.running.get(id) === ended) this.running.delete(id);
        this.stoppedHere = true;
        this.logger.log(`webhook ${id}: delivery here stopped (${ended.endReason})`);
      },
    );
    this.running.set(id, deliverer);
    const run = deliverer
      .run()
      .catch((error: Error) => {
        this.logger.error(`webhook ${id}: deliverer failed: ${error.message}`, error.stack);
        deliverer.stop('error');
        if (this.running.get(id) === deliverer) this.running.delete(id);
        this.stoppedHere = true;
      })
      .finally(() => this.runs.delete(run));
    this.runs.add(run);
  }
}
