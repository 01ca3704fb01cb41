import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { NotFoundError } from '../../common/errors/request-errors';
import { ReadConsistency } from '../read-consistency';
import { WebhooksReadModel } from './webhooks.read-model';
import { CountWebhooksQuery, DeliveryView, GetWebhookQuery, ListDeliveriesQuery, ListWebhooksQuery, WebhookView } from './webhooks.query';

const notFound = (id: string) => new NotFoundError(`webhook ${id} not found`);

@QueryHandler(ListWebhooksQuery)
export class ListWebhooksHandler implements IQueryHandler<ListWebhooksQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly webhooks: WebhooksReadModel,
  ) {}

  async execute({ tenantId }: ListWebhooksQuery): Promise<WebhookView[]> {
    await this.consistency.caughtUp();
    return this.webhooks.list(tenantId);
  }
}

@QueryHandler(GetWebhookQuery)
export class GetWebhookHandler implements IQueryHandler<GetWebhookQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly webhooks: WebhooksReadModel,
  ) {}

  async execute({ tenantId, id }: GetWebhookQuery): Promise<WebhookView> {
    await this.consistency.caughtUp();
    const webhook = this.webhooks.get(tenantId, id);
    if (!webhook) throw notFound(id);
    return webhook;
  }
}

@QueryHandler(CountWebhooksQuery)
export class CountWebhooksHandler implements IQueryHandler<CountWebhooksQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly webhooks: WebhooksReadModel,
  ) {}

  async execute({ tenantId }: CountWebhooksQuery): Promise<number> {
    await this.consistency.caughtUp();
    return this.webhooks.count(tenantId);
  }
}

@QueryHandler(ListDeliveriesQuery)
export class ListDeliveriesHandler implements IQueryHandler<ListDeliveriesQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly webhooks: WebhooksReadModel,
  ) {}

  async execute({ tenantId, id, after, limit }: ListDeliveriesQuery): Promise<DeliveryView[]> {
    await this.consistency.caughtUp();
    if (!this.webhooks.get(tenantId, id)) throw notFound(id);
    return this.webhooks.deliveriesOf(id, after, limit);
  }
}
