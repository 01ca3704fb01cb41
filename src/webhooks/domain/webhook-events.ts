/**
 * The events of a webhook endpoint's own stream (`webhook-<id>`, docs/webhooks.md#events): its
 * definition, its lease, and the outcome of every delivery attempt. The executions projections
 * and the audit feed never read these streams.
 */
export const WEBHOOK_STREAM_PREFIX = 'webhook-';
export const webhookStream = (id: string) => `${WEBHOOK_STREAM_PREFIX}${id}`;
export const webhookIdOf = (streamId: string) => streamId.slice(WEBHOOK_STREAM_PREFIX.length);

export const WEBHOOK_CREATED = 'webhook.created';
export const WEBHOOK_DELETED = 'webhook.deleted';
export const WEBHOOK_DISABLED = 'webhook.disabled';
export const WEBHOOK_SECRET_ROTATED = 'webhook.secret_rotated';
export const WEBHOOK_REPLAY_REQUESTED = 'webhook.replay_requested';
export const WEBHOOK_LEASE_TAKEN = 'webhook.lease_taken';
export const WEBHOOK_DELIVERY_ATTEMPTED = 'webhook.delivery_attempted';

/** What changes what an endpoint's deliverer does; it reads them in log order with the events it delivers. */
export const WEBHOOK_CONTROL_TYPES = [WEBHOOK_DELETED, WEBHOOK_DISABLED, WEBHOOK_SECRET_ROTATED, WEBHOOK_REPLAY_REQUESTED, WEBHOOK_LEASE_TAKEN];

/** Every event type of the binding (docs/api.md#events) an endpoint may subscribe to. */
export const DELIVERABLE_EVENT_TYPES = [
  'run.queued',
  'run.started',
  'output.text.delta',
  'output.text.done',
  'action.required',
  'action.responded',
  'artifact.created',
  'provider.event',
  'run.completed',
  'run.failed',
  'run.cancelled',
] as const;

/** What an endpoint created without `events` receives: the lifecycle, no deltas. */
export const DEFAULT_WEBHOOK_EVENTS = [
  'run.started',
  'action.required',
  'action.responded',
  'artifact.created',
  'run.completed',
  'run.failed',
  'run.cancelled',
];

export interface WebhookCreatedData {
  url: string;
  events: string[];
  description: string | null;
  /** `whsec_…`: the log holds it, so every instance can sign (docs/webhooks.md#security). */
  secret: string;
  createdAt: string;
}

export interface SecretRotatedData {
  secret: string;
  rotatedAt: string;
}

export interface ReplayRequestedData {
  /** Every matching event after this log position is sent again. */
  after: number;
}

export interface LeaseTakenData {
  instanceId: string;
}

export interface DisabledData {
  reason: string;
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';

export interface DeliveryAttemptedData {
  /** The `webhook-id` header: the same for this event and endpoint on every attempt and replay. */
  deliveryId: string;
  /** The delivered event's global position. */
  position: number;
  eventType: string;
  executionId: string;
  sequence: number;
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode: number | null;
  error: string | null;
  nextAttemptAt: string | null;
  durationMs: number;
  /** Every matching event at or below this position is settled (delivered or failed): where a restart reads from. */
  checkpoint: number;
  /** The position of the last replay request the deliverer had applied when it wrote this. */
  replay: number;
}
