import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ToolCall } from './action.schema';
import { Artifact } from './artifact.schema';
import { ExecutionError, ExecutionInput } from './execution.schema';
import { ANY_JSON, ISO_TIME, JSON_OBJECT } from './json';

/** The `data` of each event type (docs/api.md#events); the envelope's `type` says which one applies. */
export class RunQueuedData {
  @ApiProperty() conversationId!: string;
  @ApiProperty() provider!: string;
  @ApiProperty({ type: () => ExecutionInput }) input!: ExecutionInput;
  @ApiProperty({ type: [String] }) requiredCapabilities!: string[];
  @ApiProperty(JSON_OBJECT) config!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) idempotencyKey!: string | null;
}

export class RunStartedData {
  @ApiProperty() provider!: string;
}

export class TextDeltaData {
  @ApiProperty({ minLength: 1, example: 'Hel' }) delta!: string;
}

export class TextDoneData {
  @ApiProperty({ description: 'All deltas concatenated, normalized by the provider' }) text!: string;
}

export class ActionRequiredData {
  @ApiProperty() actionId!: string;
  @ApiProperty({ enum: ['approval', 'input'] }) kind!: string;
  @ApiProperty() prompt!: string;
  @ApiProperty({ ...JSON_OBJECT, nullable: true }) inputSchema!: object | null;
  @ApiProperty({ type: () => ToolCall, nullable: true }) tool!: ToolCall | null;
}

export class ActionRespondedData {
  @ApiProperty() actionId!: string;
  @ApiProperty(JSON_OBJECT) response!: Record<string, unknown>;
}

export class ArtifactCreatedData {
  @ApiProperty({ type: () => Artifact }) artifact!: Artifact;
}

export class ProviderEventData {
  @ApiProperty({ example: 'scripted' }) namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ oneOf: ANY_JSON }) payload!: unknown;
}

export class Usage {
  @ApiProperty({ type: 'integer' }) inputTokens!: number;
  @ApiProperty({ type: 'integer' }) outputTokens!: number;
}

export class RunCompletedData {
  @ApiProperty({ type: () => Usage, nullable: true, description: 'null when the provider does not report it' }) usage!: Usage | null;
}

export class RunFailedData {
  @ApiProperty({ type: () => ExecutionError }) error!: ExecutionError;
}

export class RunCancelledData {
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) providerCleanupError!: string | null;
}

/** Event type → its data schema, in the order docs/api.md#events lists them. */
export const EVENT_DATA = {
  'run.queued': RunQueuedData,
  'run.started': RunStartedData,
  'output.text.delta': TextDeltaData,
  'output.text.done': TextDoneData,
  'action.required': ActionRequiredData,
  'action.responded': ActionRespondedData,
  'artifact.created': ArtifactCreatedData,
  'provider.event': ProviderEventData,
  'run.completed': RunCompletedData,
  'run.failed': RunFailedData,
  'run.cancelled': RunCancelledData,
};

const dataTable = Object.entries(EVENT_DATA)
  .map(([type, schema]) => `- \`${type}\`: ${schema.name}`)
  .join('\n');

/** One event, identical in the JSON replay, in SSE `data:` lines and in the store. */
export class Event {
  @ApiProperty()
  executionId!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: "Position in the execution's stream, from 1, with no gaps" })
  sequence!: number;

  @ApiProperty({ enum: Object.keys(EVENT_DATA) })
  type!: string;

  @ApiProperty(ISO_TIME)
  occurredAt!: string;

  @ApiProperty({
    oneOf: Object.values(EVENT_DATA).map((schema) => ({ $ref: getSchemaPath(schema) })),
    description: `Depends on \`type\`:\n${dataTable}`,
  })
  data!: object;
}

export class EventPage {
  @ApiProperty({ type: () => [Event], description: 'In sequence order, after the cursor' })
  events!: Event[];

  @ApiProperty({ type: 'integer', description: "The execution's highest sequence" })
  lastSequence!: number;

  @ApiProperty({ description: 'True once the terminal event exists' })
  terminal!: boolean;
}
