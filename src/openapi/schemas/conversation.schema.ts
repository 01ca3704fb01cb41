import { ApiProperty } from '@nestjs/swagger';
import { EXECUTION_STATUSES } from './execution.schema';
import { ISO_TIME, JSON_OBJECT } from './json';

export class ConversationExecution {
  @ApiProperty()
  id!: string;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: string;

  @ApiProperty({ example: 'scripted' })
  provider!: string;

  @ApiProperty(ISO_TIME)
  createdAt!: string;
}

export class Conversation {
  @ApiProperty({ description: 'UUIDv7' })
  id!: string;

  @ApiProperty({ type: String, nullable: true })
  title!: string | null;

  @ApiProperty({ ...JSON_OBJECT, description: '`{}` when none was given' })
  metadata!: Record<string, unknown>;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ type: () => [ConversationExecution], description: 'Oldest first' })
  executions!: ConversationExecution[];
}
