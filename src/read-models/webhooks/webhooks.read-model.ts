import type Database from 'better-sqlite3';

export type WebhookStatus = 'enabled' | 'disabled';

/** An endpoint as GET /v1/webhooks/{id} shows it (docs/api.md#webhooks): never its secret. */
export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookStatus;
  createdAt: string;
}

export interface DeliveryView {
  id: string;
  eventType: string;
  executionId: string;
  sequence: number;
  position: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

interface WebhookRow {
  id: string;
  url: string;
  events: string;
  description: string | null;
  status: WebhookStatus;
  created_at: string;
}

const toView = (row: WebhookRow): WebhookView => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events),
  description: row.description,
  status: row.status,
  createdAt: row.created_at,
});

/** The webhooks projection's rows; deleted endpoints are not found. */
export class WebhooksReadModel {
  private readonly one;
  private readonly ofTenant;
  private readonly countOf;
  private readonly deliveries;

  constructor(db: Database.Database) {
    const columns = 'id, url, events, description, status, created_at';
    this.one = db.prepare<[string, string], WebhookRow>(`SELECT ${columns} FROM webhooks WHERE id = ? AND tenant_id = ? AND status <> 'deleted'`);
    this.ofTenant = db.prepare<[string], WebhookRow>(`SELECT ${columns} FROM webhooks WHERE tenant_id = ? AND status <> 'deleted' ORDER BY position`);
    this.countOf = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM webhooks WHERE tenant_id = ? AND status <> 'deleted'`);
    this.deliveries = db.prepare<[string, number, number], Record<string, unknown>>(
      `SELECT id, event_type AS eventType, execution_id AS executionId, sequence, position, status, attempts,
              last_status_code AS lastStatusCode, last_error AS lastError, next_attempt_at AS nextAttemptAt, delivered_at AS deliveredAt
       FROM webhook_deliveries WHERE webhook_id = ? AND position > ? ORDER BY position LIMIT ?`,
    );
  }

  get(tenantId: string, id: string): WebhookView | null {
    const row = this.one.get(id, tenantId);
    return row ? toView(row) : null;
  }

  list(tenantId: string): WebhookView[] {
    return this.ofTenant.all(tenantId).map(toView);
  }

  count(tenantId: string): number {
    return this.countOf.get(tenantId)!.n;
  }

  deliveriesOf(id: string, after: number, limit: number): DeliveryView[] {
    return this.deliveries.all(id, after, limit) as unknown as DeliveryView[];
  }
}
