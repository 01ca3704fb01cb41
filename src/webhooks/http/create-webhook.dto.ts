import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation';
import { DELIVERABLE_EVENT_TYPES, DEFAULT_WEBHOOK_EVENTS } from '../domain/webhook-events';
import { MAX_WEBHOOK_URL_LENGTH } from '../webhook-url';

/** docs/api.md#webhooks */
export class CreateWebhookDto {
  @ApiProperty({
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    example: 'https://hooks.example.com/runledger',
    description: 'https (http only with WEBHOOK_ALLOW_HTTP=true); its host must not resolve to a loopback, private or link-local address',
  })
  @IsString({ message: 'url must be a string' })
  @CodePointLength(1, MAX_WEBHOOK_URL_LENGTH, { message: `url must be from 1 to ${MAX_WEBHOOK_URL_LENGTH} characters` })
  url!: string;

  @ApiPropertyOptional({
    type: [String],
    enum: DELIVERABLE_EVENT_TYPES,
    minItems: 1,
    maxItems: DELIVERABLE_EVENT_TYPES.length,
    description: `The event types to deliver; duplicates are dropped. Default: ${DEFAULT_WEBHOOK_EVENTS.join(', ')}`,
  })
  @IsOptional()
  @IsArray({ message: 'events must be an array of event types' })
  @ArrayMinSize(1, { message: 'events must not be empty' })
  @ArrayMaxSize(DELIVERABLE_EVENT_TYPES.length, { message: `events must have at most ${DELIVERABLE_EVENT_TYPES.length} entries` })
  @IsIn(DELIVERABLE_EVENT_TYPES, { each: true, message: `events must contain only ${DELIVERABLE_EVENT_TYPES.join(', ')}` })
  events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500, description: 'Length in Unicode code points' })
  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @CodePointLength(1, 500, { message: 'description must be from 1 to 500 characters' })
  description?: string | null;
}
