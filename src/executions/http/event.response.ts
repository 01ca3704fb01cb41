import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ClosedSchema } from '../../openapi/complete-document';
import { ANY_JSON, ISO_TIME, JSON_OBJECT, nullable } from '../../openapi/schema-types';
import { ActionKind, ExecutionEvent } from '../domain/execution-events';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { CONCURRENCY_SHOWN } from '../../conversations/http/concurrency.field';
import { ToolCallResponse } from './action.response';
import { ArtifactResponse } from './artifact.response';
import { BudgetResponse, ExecutionErrorResponse, ExecutionInputResponse, TIMEOUT_MS } from './execution.response';

type DataOf<T extends ExecutionEvent['type']> = Extract<ExecutionEvent, { type: T }>['data'];

/** The `data` of each event type (docs/api.md#events); the envelope's `type` says which one applies. */
@ClosedSchema()
export class RunQueuedData implements DataOf<'run.queued'> {
  @ApiProperty() conversationId!: string;
  @ApiProperty() provider!: string;
  @ApiProperty({ type: () => ExecutionInputResponse }) input!: ExecutionInputResponse;
  @ApiProperty({ type: [String] }) requiredCapabilities!: string[];
  @ApiProperty(JSON_OBJECT) config!: Record<string, unknown>;
  @ApiProperty({ type: String, nullable: true }) idempotencyKey!: string | null;
  @ApiPropertyOptional(TIMEOUT_MS('Present when the run has a deadline')) timeoutMs?: number;
  @ApiPropertyOptional(TIMEOUT_MS('Present when set on the request')) actionTimeoutMs?: number;
  @ApiPropertyOptional(CONCURRENCY_SHOWN('Present when the request or its conversation set it')) concurrency?: ConcurrencyPolicy;
  @ApiPropertyOptional({ ...JSON_OBJECT, description: 'Present when started through POST /v1/responses: the settings every read of the response echoes' })
  responses?: Record<string, unknown>;
  @ApiPropertyOptional({ type: () => BudgetResponse, description: 'Present when set on the request' }) budget?: BudgetResponse;
}

@ClosedSchema()
export class RunStartedData implements DataOf<'run.started'> {
  @ApiProperty() provider!: string;
  @ApiPropertyOptional({
    minLength: 1,
    example: 'gpt-4o-mini',
    description: 'The model the provider runs for this config; absent when it names none (scripted)',
  })
  model?: string;
}

@ClosedSchema()
export class TextDeltaData implements DataOf<'output.text.delta'> {
  @ApiProperty({ minLength: 1, example: 'Hel' }) delta!: string;
}

@ClosedSchema()
export class TextDoneData implements DataOf<'output.text.done'> {
  @ApiProperty({ description: 'All deltas concatenated, normalized by the provider' }) text!: string;
}

@ClosedSchema()
@ApiExtraModels(ToolCallResponse)
export class ActionRequiredData implements DataOf<'action.required'> {
  @ApiProperty() actionId!: string;
  @ApiProperty({ enum: ['approval', 'input'] }) kind!: ActionKind;
  @ApiProperty() prompt!: string;
  @ApiProperty({ ...JSON_OBJECT, nullable: true }) inputSchema!: object | null;
  @ApiProperty(nullable(ToolCallResponse)) tool!: ToolCallResponse | null;
  @ApiPropertyOptional({ ...ISO_TIME, description: 'When the run fails `ACTION_EXPIRED` if the action is still unanswered; present when it has a timeout' })
  expiresAt?: string;
}

@ClosedSchema()
export class ActionRespondedData implements DataOf<'action.responded'> {
  @ApiProperty() actionId!: string;
  @ApiProperty(JSON_OBJECT) response!: Record<string, unknown>;
}

@ClosedSchema()
export class ArtifactCreatedData implements DataOf<'artifact.created'> {
  @ApiProperty({ type: () => ArtifactResponse }) artifact!: ArtifactResponse;
}

@ClosedSchema()
export class ProviderEventData implements DataOf<'provider.event'> {
  @ApiProperty({ example: 'scripted' }) namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ oneOf: ANY_JSON }) payload!: unknown;
}

export class Usage {
  @ApiProperty({ type: 'integer', minimum: 0 }) inputTokens!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) outputTokens!: number;
}

@ClosedSchema()
@ApiExtraModels(Usage)
export class RunCompletedData implements DataOf<'run.completed'> {
  @ApiProperty(nullable(Usage, 'null when the provider does not report it')) usage!: Usage | null;
}

@ClosedSchema()
export class RunFailedData implements DataOf<'run.failed'> {
  @ApiProperty({ type: () => ExecutionErrorResponse }) error!: ExecutionErrorResponse;
  @ApiProperty(nullable(Usage, 'Tokens spent before the failure; null when the provider reported none')) usage!: Usage | null;
}

@ClosedSchema()
export class RunCancelledData implements DataOf<'run.cancelled'> {
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) providerCleanupError!: string | null;
  @ApiProperty(nullable(Usage, 'Tokens spent before the cancel; null when the provider reported none')) usage!: Usage | null;
}

/**
 * Event type → its data schema, in the order docs/api.md#events lists them. Each is closed (no
 * other properties), so an event's data matches exactly one of them.
 */
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
} satisfies { [T in ExecutionEvent['type']]: new () => DataOf<T> };

const dataTable = Object.entries(EVENT_DATA)
  .map(([type, schema]) => `- \`${type}\`: ${schema.name}`)
  .join('\n');

/** One event, identical in the JSON replay, in SSE `data:` lines and in the store. */
@ApiSchema({ name: 'Event' })
@ApiExtraModels(...Object.values(EVENT_DATA))
export class EventResponse {
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
  data!: Record<string, unknown>;
}

/** docs/api.md#events: a page of the JSON replay. */
@ApiSchema({ name: 'EventPage' })
export class EventPageResponse {
  @ApiProperty({ type: () => [EventResponse], description: 'In sequence order, after the cursor' })
  events!: EventResponse[];

  @ApiProperty({ type: 'integer', description: "The execution's highest sequence" })
  lastSequence!: number;

  @ApiProperty({ description: 'True once the terminal event exists' })
  terminal!: boolean;
}
