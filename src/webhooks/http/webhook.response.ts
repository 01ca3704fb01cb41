import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ISO_TIME } from '../../openapi/schema-types';
import { DELIVERABLE_EVENT_TYPES } from '../domain/webhook-events';

/** docs/api.md#webhooks: an endpoint, never with its secret. */
@ApiSchema({ name: 'Webhook' })
export class WebhookResponse {
  @ApiProperty({ description: 'UUIDv7' })
  id!: string;

  @ApiProperty({ example: 'https://hooks.example.com/runledger' })
  url!: string;

  @ApiProperty({ type: [String], enum: DELIVERABLE_EVENT_TYPES })
  events!: string[];

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ enum: ['enabled', 'disabled'], description: '`disabled` after a receiver answered 410 Gone' })
  status!: 'enabled' | 'disabled';

  @ApiProperty(ISO_TIME)
  createdAt!: string;
}

/** The answer of create and rotate: the only ones that show the secret. */
@ApiSchema({ name: 'WebhookWithSecret' })
export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', description: 'The Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes' })
  secret!: string;
}

@ApiSchema({ name: 'WebhookList' })
export class WebhookListResponse {
  @ApiProperty({ type: () => [WebhookResponse], description: 'Oldest first; at most WEBHOOK_MAX_PER_TENANT' })
  webhooks!: WebhookResponse[];
}

/** One event's delivery to one endpoint (docs/webhooks.md#the-delivery-log). */
@ApiSchema({ name: 'WebhookDelivery' })
export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'msg_2kPz8mQ0e9uVbXf1cW3aLrT5yNh', description: 'The `webhook-id` header: the same on every attempt and replay' })
  id!: string;

  @ApiProperty({ example: 'run.completed' })
  eventType!: string;

  @ApiProperty()
  executionId!: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  sequence!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: "The event's global position: the page cursor" })
  position!: number;

  @ApiProperty({ enum: ['pending', 'delivered', 'failed'] })
  status!: 'pending' | 'delivered' | 'failed';

  @ApiProperty({ type: 'integer', minimum: 1 })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The status the receiver answered last; null when it did not answer' })
  lastStatusCode!: number | null;

  @ApiProperty({ type: String, nullable: true })
  lastError!: string | null;

  @ApiProperty({ ...ISO_TIME, nullable: true, description: 'Set while pending' })
  nextAttemptAt!: string | null;

  @ApiProperty({ ...ISO_TIME, nullable: true })
  deliveredAt!: string | null;
}

@ApiSchema({ name: 'WebhookDeliveryPage' })
export class WebhookDeliveryPageResponse {
  @ApiProperty({ type: () => [WebhookDeliveryResponse], description: 'By event position, after the cursor; the next page starts after the last one' })
  deliveries!: WebhookDeliveryResponse[];
}

@ApiSchema({ name: 'WebhookReplay' })
export class WebhookReplayResponse {
  @ApiProperty({ type: 'integer', minimum: 0 })
  after!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: "The log's head when the replay was asked" })
  upTo!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Matching events after `after` then (sent again; later ones are sent anyway)' })
  events!: number;
}
