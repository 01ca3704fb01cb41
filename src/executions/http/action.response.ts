import { ApiExtraModels, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ANY_JSON, ISO_TIME, JSON_OBJECT, nullable } from '../../openapi/schema-types';
import { ActionKind, ToolCall } from '../domain/execution-events';
import { ActionState } from '../domain/execution-state';

@ApiSchema({ name: 'ToolCall' })
export class ToolCallResponse implements ToolCall {
  @ApiProperty()
  callId!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ oneOf: ANY_JSON, description: "The model's arguments as JSON" })
  arguments!: unknown;
}

/** docs/api.md#actions; `actionView` writes it, in this key order. */
@ApiSchema({ name: 'Action' })
@ApiExtraModels(ToolCallResponse)
export class ActionResponse {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  executionId!: string;

  @ApiProperty({ enum: ['approval', 'input'] })
  kind!: ActionKind;

  @ApiProperty()
  prompt!: string;

  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'JSON Schema 2020-12 the `value` of an input answer must satisfy' })
  inputSchema!: object | null;

  @ApiProperty(nullable(ToolCallResponse, "Set when the action is a model's tool call"))
  tool!: ToolCallResponse | null;

  @ApiProperty({ enum: ['pending', 'resolved', 'cancelled'] })
  status!: ActionState['status'];

  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'The accepted answer as sent, less optional fields sent as null' })
  response!: Record<string, unknown> | null;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ ...ISO_TIME, nullable: true, description: 'When it was answered or cancelled' })
  resolvedAt!: string | null;
}

@ApiSchema({ name: 'ActionList' })
export class ActionListResponse {
  @ApiProperty({ type: () => [ActionResponse], description: 'In creation order' })
  actions!: ActionResponse[];
}
