import type Database from 'better-sqlite3';
import { StoredEvent } from '../../event-store/event-store';
import {
  DeliveryAttemptedData,
  WEBHOOK_CREATED,
  WEBHOOK_DELETED,
  WEBHOOK_DELIVERY_ATTEMPTED,
  WEBHOOK_DISABLED,
  WEBHOOK_STREAM_PREFIX,
  WebhookCreatedData,
  webhookIdOf,
} from '../../webhooks/domain/webhook-events';
import { Projection } from '../projection';

/**
 * Webhook endpoints (never their secrets) and their delivery log (docs/webhooks.md#the-delivery-log),
 * from the endpoints' own streams. What is delivered next is decided by the checkpoint in those
 * streams, never by these rows: deleting the file re-sends nothing.
 */
export const webhooksProjection: Projection = {
  name: 'webhooks',
  version: 1,
  tables: ['webhooks', 'webhook_deliveries'],
  create: (db) =>
    db.exec(`CREATE TABLE webhooks (
      id          TEXT PRIMARY KEY,
      tenant_id   TEXT NOT NULL,
      url         TEXT NOT NULL,
      events      TEXT NOT NULL,
      description TEXT,
      status      TEXT NOT NULL,
      created_at  TEXT NOT NULL,
      position    INTEGER NOT NULL
    );
    CREATE INDEX webhooks_by_tenant ON webhooks (tenant_id, position);
    CREATE TABLE webhook_deliveries (
      webhook_id       TEXT NOT NULL,
      position         INTEGER NOT NULL,
      id               TEXT NOT NULL,
      event_type       TEXT NOT NULL,
      execution_id     TEXT NOT NULL,
      sequence         INTEGER NOT NULL,
      status           TEXT NOT NULL,
      attempts         INTEGER NOT NULL,
      last_status_code INTEGER,
      last_error       TEXT,
      next_attempt_at  TEXT,
      delivered_at     TEXT,
      PRIMARY KEY (webhook_id, position)
    )`),
  bind(db: Database.Database) {
    const insert = db.prepare(
      `INSERT OR IGNORE INTO webhooks (id, tenant_id, url, events, description, status, created_at, position)
       VALUES (@id, @tenantId, @url, @events, @description, 'enabled', @createdAt, @position)`,
    );
    const setStatus = db.prepare<[string, string]>(`UPDATE webhooks SET status = ? WHERE id = ? AND status <> 'deleted'`);
    const attempt = db.prepare(
      `INSERT INTO webhook_deliveries (webhook_id, position, id, event_type, execution_id, sequence, status, attempts, last_status_code, last_error, next_attempt_at, delivered_at)
       VALUES (@webhookId, @position, @id, @eventType, @executionId, @sequence, @status, @attempts, @lastStatusCode, @lastError, @nextAttemptAt, @deliveredAt)
       ON CONFLICT (webhook_id, position) DO UPDATE SET status = excluded.status, attempts = excluded.attempts,
         last_status_code = excluded.last_status_code, last_error = excluded.last_error,
         next_attempt_at = excluded.next_attempt_at, delivered_at = coalesce(excluded.delivered_at, delivered_at)`,
    );
    return (events: StoredEvent[]) => {
      for (const event of events) {
        if (!event.streamId.startsWith(WEBHOOK_STREAM_PREFIX)) continue;
        const id = webhookIdOf(event.streamId);
        if (event.type === WEBHOOK_CREATED) {
          const data = event.data as unknown as WebhookCreatedData;
          insert.run({
            id,
            tenantId: event.metadata.tenantId,
            url: data.url,
            events: JSON.stringify(data.events),
            description: data.description,
            createdAt: data.createdAt,
            position: event.position,
          });
        } else if (event.type === WEBHOOK_DELETED) setStatus.run('deleted', id);
        else if (event.type === WEBHOOK_DISABLED) setStatus.run('disabled', id);
        else if (event.type === WEBHOOK_DELIVERY_ATTEMPTED) {
          const data = event.data as unknown as DeliveryAttemptedData;
          attempt.run({
            webhookId: id,
            position: data.position,
            id: data.deliveryId,
            eventType: data.eventType,
            executionId: data.executionId,
            sequence: data.sequence,
            status: data.outcome === 'retrying' ? 'pending' : data.outcome,
            attempts: data.attempt,
            lastStatusCode: data.statusCode,
            lastError: data.error,
            nextAttemptAt: data.nextAttemptAt,
            deliveredAt: data.outcome === 'delivered' ? event.occurredAt : null,
          });
        }
      }
    };
  },
};
