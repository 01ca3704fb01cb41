import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { CONCURRENCY_SHOWN } from './concurrency.field';
import { EXECUTION_STATUSES } from '../../executions/http/execution.response';
import { ISO_TIME, JSON_OBJECT } from '../../openapi/schema-types';

@ApiSchema({ name: 'ConversationExecution' })
export class ConversationExecutionResponse {
  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: string;

  @ApiProperty({ example: 'scripted' })
  provider!: string;

  @ApiProperty(ISO_TIME)
  createdAt!: string;
}

/** docs/api.md#conversations */
@ApiSchema({ name: 'Conversation' })
export class ConversationResponse {
  @ApiProperty({ description: 'UUIDv7' })
  id!: string;

  @ApiProperty({ type: String, nullable: true })
  title!: string | null;

  @ApiProperty({ ...JSON_OBJECT, description: '`{}` when none was given' })
  metadata!: Record<string, unknown>;

  @ApiPropertyOptional(CONCURRENCY_SHOWN('The default `concurrency` of its executions; absent when not set (parallel)'))
  concurrency?: ConcurrencyPolicy;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ type: () => [ConversationExecutionResponse], description: 'Oldest first' })
  executions!: ConversationExecutionResponse[];
}
