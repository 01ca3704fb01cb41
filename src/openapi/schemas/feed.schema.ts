import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Execution } from './execution.schema';
import { ISO_TIME, JSON_OBJECT } from './json';

/** An event in the audit feed: the envelope of docs/api.md#events plus its global position. */
export class FeedEvent {
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

export class FeedPage {
  @ApiProperty({ type: () => [FeedEvent], description: 'In global order, after the cursor' })
  events!: FeedEvent[];

  @ApiProperty({ type: 'integer', description: 'The feed is complete up to here: resume with `after` = this, even after an empty page' })
  lastPosition!: number;
}

export class ExecutionSearchPage {
  @ApiProperty({ type: () => [Execution], description: 'Newest first' })
  executions!: Execution[];

  @ApiProperty({ type: String, nullable: true, description: 'Opaque; pass as `cursor` for the next page. null on the last page' })
  nextCursor!: string | null;
}
