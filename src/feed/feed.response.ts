import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ISO_TIME, JSON_OBJECT } from '../openapi/schema-types';

/** An event in the audit feed: the envelope of docs/api.md#events plus its global position. */
@ApiSchema({ name: 'FeedEvent' })
export class FeedEventResponse {
  @ApiPropertyOptional({ description: "Set on an execution's events" })
  executionId?: string;

  @ApiPropertyOptional({ description: "Set on a conversation's events (in place of executionId)" })
  conversationId?: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Position in its own stream, from 1' })
  sequence!: number;

  @ApiProperty({ example: 'run.queued', description: 'An execution event type (see Event), or `conversation.created`' })
  type!: string;

  @ApiProperty(ISO_TIME)
  occurredAt!: string;

  @ApiProperty({ ...JSON_OBJECT, description: "The event's data, as in Event" })
  data!: Record<string, unknown>;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Position in the global log: the feed cursor' })
  position!: number;
}

/** docs/api.md#audit-feed: a page of the feed. */
@ApiSchema({ name: 'FeedPage' })
export class FeedPageResponse {
  @ApiProperty({ type: () => [FeedEventResponse], description: 'In global order, after the cursor' })
  events!: FeedEventResponse[];

  @ApiProperty({ type: 'integer', description: 'The feed is complete up to here: resume with `after` = this, even after an empty page' })
  lastPosition!: number;
}
