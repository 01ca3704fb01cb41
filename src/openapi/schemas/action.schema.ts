import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ANY_JSON, ISO_TIME, JSON_OBJECT } from './json';

export class ToolCall {
  @ApiProperty()
  callId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ oneOf: ANY_JSON, description: "The model's arguments as JSON" })
  arguments!: unknown;
}

export class Action {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  executionId!: string;

  @ApiProperty({ enum: ['approval', 'input'] })
  kind!: string;

  @ApiProperty()
  prompt!: string;

  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'JSON Schema 2020-12 the `value` of an input answer must satisfy' })
  inputSchema!: object | null;

  @ApiProperty({ type: () => ToolCall, nullable: true, description: "Set when the action is a model's tool call" })
  tool!: ToolCall | null;

  @ApiProperty({ enum: ['pending', 'resolved', 'cancelled'] })
  status!: string;

  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'The accepted answer as sent, less optional fields sent as null' })
  response!: Record<string, unknown> | null;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ ...ISO_TIME, nullable: true, description: 'When it was answered or cancelled' })
  resolvedAt!: string | null;
}

export class ActionList {
  @ApiProperty({ type: () => [Action], description: 'In creation order' })
  actions!: Action[];
}

/** The answer to an `approval` action. */
export class ApprovalAnswer {
  @ApiProperty({ enum: ['approve', 'deny'] })
  decision!: string;

  @ApiPropertyOptional({ type: String, maxLength: 2000, nullable: true })
  comment?: string | null;
}

/** The answer to an `input` action. */
export class InputAnswer {
  @ApiProperty({ oneOf: ANY_JSON, description: "Any JSON, validated against the action's inputSchema when it has one" })
  value!: unknown;
}
