import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { nowIso } from '../common/clock';
import { RateLimitedError, ValidationError } from '../common/errors/request-errors';
import { INSTANCE_ID } from '../common/instance-id';
import { newId } from '../common/ids';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore, NewEvent } from '../event-store/event-store';
import { CountWebhooksQuery, GetWebhookQuery, WebhookView } from '../read-models/webhooks/webhooks.query';
import {
  DEFAULT_WEBHOOK_EVENTS,
  WEBHOOK_CREATED,
  WEBHOOK_DELETED,
  WEBHOOK_REPLAY_REQUESTED,
  WEBHOOK_SECRET_ROTATED,
  webhookStream,
} from './domain/webhook-events';
import { WEBHOOK_SCHEMA_VERSION } from './delivery/outcome-writer';
import { newWebhookSecret } from './delivery/signature';
import { urlProblem } from './webhook-url';

export interface NewWebhook {
  url: string;
  events?: string[];
  description?: string | null;
}

/** The answer of create and rotate: the endpoint and its secret, which no other answer shows. */
export type WebhookWithSecret = WebhookView & { secret: string };

/** Creates, deletes, rotates and replays endpoints by appending to their streams (docs/webhooks.md#events). */
@Injectable()
export class WebhookCommands {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'webhooks'>,
    private readonly queries: QueryBus,
  ) {}

  async create(tenantId: string, input: NewWebhook): Promise<WebhookWithSecret> {
    const problem = await urlProblem(input.url, this.config.webhooks);
    if (problem) throw new ValidationError(problem);
    const { maxPerTenant } = this.config.webhooks;
    if ((await this.queries.execute(new CountWebhooksQuery(tenantId))) >= maxPerTenant) {
      throw new RateLimitedError(`a tenant may have at most ${maxPerTenant} webhook endpoints (WEBHOOK_MAX_PER_TENANT); delete one first`);
    }
    const id = newId();
    const createdAt = nowIso();
    const data = {
      url: input.url,
      events: input.events ? [...new Set(input.events)] : DEFAULT_WEBHOOK_EVENTS,
      description: input.description ?? null,
      secret: newWebhookSecret(),
      createdAt,
    };
    await this.store.append(webhookStream(id), [this.event(tenantId, id, WEBHOOK_CREATED, data, createdAt)], 'no_stream');
    return { id, url: data.url, events: data.events, description: data.description, status: 'enabled', createdAt, secret: data.secret };
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.queries.execute(new GetWebhookQuery(tenantId, id));
    await this.store.append(webhookStream(id), [this.event(tenantId, id, WEBHOOK_DELETED, {}, nowIso())], 'any');
  }

  async rotate(tenantId: string, id: string): Promise<WebhookWithSecret> {
    const webhook = await this.queries.execute(new GetWebhookQuery(tenantId, id));
    const rotatedAt = nowIso();
    const secret = newWebhookSecret();
    await this.store.append(webhookStream(id), [this.event(tenantId, id, WEBHOOK_SECRET_ROTATED, { secret, rotatedAt }, rotatedAt)], 'any');
    return { ...webhook, secret };
  }

  /** Every matching event after `after` is sent again; the range is bounded by WEBHOOK_REPLAY_MAX_EVENTS. */
  async replay(tenantId: string, id: string, after: number): Promise<{ after: number; upTo: number; events: number }> {
    const webhook = await this.queries.execute(new GetWebhookQuery(tenantId, id));
    const upTo = await this.store.headPosition();
    if (after > upTo) throw new ValidationError(`after must be at most the log's head position, ${upTo}`);
    const cap = this.config.webhooks.replayMaxEvents;
    const filter = { tenantId, streamPrefixes: ['execution-'], types: webhook.events };
    const events = await this.store.countAll({ after, limit: cap + 1, filter });
    if (events > cap)
      throw new ValidationError(`a replay may send at most ${cap} events (WEBHOOK_REPLAY_MAX_EVENTS); this one would send more: choose a later after`);
    await this.store.append(webhookStream(id), [this.event(tenantId, id, WEBHOOK_REPLAY_REQUESTED, { after }, nowIso())], 'any');
    return { after, upTo, events };
  }

  private event(tenantId: string, id: string, type: string, data: Record<string, unknown>, occurredAt: string): NewEvent {
    return {
      id: newId(),
      type,
      data,
      occurredAt,
      metadata: { tenantId, schemaVersion: WEBHOOK_SCHEMA_VERSION, correlationId: id, causationId: null, instanceId: INSTANCE_ID },
    };
  }
}
