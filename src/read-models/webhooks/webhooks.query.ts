import { Query } from '@nestjs/cqrs';
import type { DeliveryView, WebhookView } from './webhooks.read-model';

export type { DeliveryView, WebhookView } from './webhooks.read-model';

/** A tenant's endpoints (docs/api.md#webhooks), oldest first; bounded by WEBHOOK_MAX_PER_TENANT. */
export class ListWebhooksQuery extends Query<WebhookView[]> {
  constructor(readonly tenantId: string) {
    super();
  }
}

/** One endpoint of the tenant's; NotFoundError for another tenant's, a deleted one or none. */
export class GetWebhookQuery extends Query<WebhookView> {
  constructor(
    readonly tenantId: string,
    readonly id: string,
  ) {
    super();
  }
}

/** How many endpoints the tenant has (deleted ones do not count). */
export class CountWebhooksQuery extends Query<number> {
  constructor(readonly tenantId: string) {
    super();
  }
}

/** An endpoint's delivery log, by event position, after `after`. */
export class ListDeliveriesQuery extends Query<DeliveryView[]> {
  constructor(
    readonly tenantId: string,
    readonly id: string,
    readonly after: number,
    readonly limit: number,
  ) {
    super();
  }
}
