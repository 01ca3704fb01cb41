import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiPropertyOptions, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { JSON_OBJECT, nullable } from '../../openapi/schema-types';

/** docs/responses-api.md: the Response object, as the Open Responses specification describes it. */

export class OutputTextPartResponse {
  @ApiProperty({ enum: ['output_text'] }) type!: 'output_text';
  @ApiProperty() text!: string;
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: 0 }) annotations!: never[];
  @ApiProperty({ type: 'array', items: { type: 'object' }, maxItems: 0 }) logprobs!: never[];
}

@ApiSchema({ name: 'ResponseMessageItem' })
export class MessageItemResponse {
  @ApiProperty({ enum: ['message'] }) type!: 'message';
  @ApiProperty({ example: 'msg_0190…_3' }) id!: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'incomplete'] }) status!: string;
  @ApiProperty({ enum: ['assistant'] }) role!: 'assistant';
  @ApiProperty({ type: () => [OutputTextPartResponse] }) content!: OutputTextPartResponse[];
}

@ApiSchema({ name: 'ResponseFunctionCallItem' })
export class FunctionCallItemResponse {
  @ApiProperty({ enum: ['function_call'] }) type!: 'function_call';
  @ApiProperty({ example: 'fc_0190…_5' }) id!: string;
  @ApiProperty({ description: "The model's call id; a function_call_output answers it" }) call_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'The arguments as JSON text' }) arguments!: string;
  @ApiProperty({ enum: ['in_progress', 'completed', 'incomplete'] }) status!: string;
}

export class FunctionToolResponse {
  @ApiProperty({ enum: ['function'] }) type!: 'function';
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty(JSON_OBJECT) parameters!: Record<string, unknown>;
  @ApiProperty({ enum: [false] }) strict!: false;
}

class InputTokensDetails {
  @ApiProperty({ type: 'integer' }) cached_tokens!: number;
}
class OutputTokensDetails {
  @ApiProperty({ type: 'integer' }) reasoning_tokens!: number;
}

export class ResponseUsageResponse {
  @ApiProperty({ type: 'integer' }) input_tokens!: number;
  @ApiProperty({ type: () => InputTokensDetails }) input_tokens_details!: InputTokensDetails;
  @ApiProperty({ type: 'integer' }) output_tokens!: number;
  @ApiProperty({ type: () => OutputTokensDetails }) output_tokens_details!: OutputTokensDetails;
  @ApiProperty({ type: 'integer' }) total_tokens!: number;
}

class ResponseErrorInfo {
  @ApiProperty({ description: 'The run.failed code (PROVIDER_ERROR, DEADLINE_EXCEEDED, …)' }) code!: string;
  @ApiProperty() message!: string;
}

class IncompleteDetails {
  @ApiProperty({ enum: ['max_output_tokens'] }) reason!: string;
}

class TextFormat {
  @ApiProperty({ enum: ['text'] }) type!: 'text';
}
class TextSettings {
  @ApiProperty({ type: () => TextFormat }) format!: TextFormat;
}
class ConversationRef {
  @ApiProperty({ description: 'The Runledger conversation the execution belongs to' }) id!: string;
}

const NULL_ONLY = { type: 'object', nullable: true, enum: [null] } as unknown as ApiPropertyOptions;
const orNull = (model: new () => object) => nullable(model) as unknown as ApiPropertyOptions;

@ApiSchema({ name: 'Response' })
@ApiExtraModels(MessageItemResponse, FunctionCallItemResponse, ResponseUsageResponse, ResponseErrorInfo, IncompleteDetails)
export class ResponseObjectResponse {
  @ApiProperty({ example: 'resp_0190…', description: '`resp_<execution id>` for the first turn, `resp_<execution id>_<n>` for the n-th' }) id!: string;
  @ApiProperty({ enum: ['response'] }) object!: 'response';
  @ApiProperty({ type: 'integer', description: 'Unix seconds' }) created_at!: number;
  @ApiProperty({ type: 'integer', nullable: true }) completed_at!: number | null;
  @ApiProperty({ enum: ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete'] }) status!: string;
  @ApiProperty(orNull(IncompleteDetails)) incomplete_details!: IncompleteDetails | null;
  @ApiProperty({ description: 'As requested: a provider id, or <provider id>/<model>' }) model!: string;
  @ApiProperty({ type: String, nullable: true }) previous_response_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) instructions!: string | null;
  @ApiProperty({ type: 'array', items: { oneOf: [{ $ref: getSchemaPath(MessageItemResponse) }, { $ref: getSchemaPath(FunctionCallItemResponse) }] } })
  output!: unknown[];
  @ApiProperty(orNull(ResponseErrorInfo)) error!: ResponseErrorInfo | null;
  @ApiProperty({ type: () => [FunctionToolResponse] }) tools!: FunctionToolResponse[];
  @ApiProperty({ enum: ['auto', 'none'] }) tool_choice!: string;
  @ApiProperty({ enum: ['disabled'] }) truncation!: string;
  @ApiProperty() parallel_tool_calls!: boolean;
  @ApiProperty({ type: () => TextSettings }) text!: TextSettings;
  @ApiProperty() top_p!: number;
  @ApiProperty() presence_penalty!: number;
  @ApiProperty() frequency_penalty!: number;
  @ApiProperty({ type: 'integer' }) top_logprobs!: number;
  @ApiProperty({ description: '1 when the request set none' }) temperature!: number;
  @ApiProperty(NULL_ONLY) reasoning!: null;
  @ApiProperty(NULL_ONLY) user!: null;
  @ApiProperty(orNull(ResponseUsageResponse)) usage!: ResponseUsageResponse | null;
  @ApiProperty({ type: 'integer', nullable: true }) max_output_tokens!: number | null;
  @ApiProperty(NULL_ONLY) max_tool_calls!: null;
  @ApiProperty({ enum: [true] }) store!: true;
  @ApiProperty() background!: boolean;
  @ApiProperty({ enum: ['default'] }) service_tier!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty(NULL_ONLY) safety_identifier!: null;
  @ApiProperty(NULL_ONLY) prompt_cache_key!: null;
  @ApiProperty({ type: () => ConversationRef }) conversation!: ConversationRef;
}

class InputTextPartResponse {
  @ApiProperty({ enum: ['input_text'] }) type!: 'input_text';
  @ApiProperty() text!: string;
}

@ApiSchema({ name: 'ResponseInputItem' })
export class InputItemResponse {
  @ApiProperty({ enum: ['message', 'function_call_output'] }) type!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['completed'] }) status!: string;
  @ApiPropertyOptional({ enum: ['user', 'system', 'developer'], description: 'message only' }) role?: string;
  @ApiPropertyOptional({ type: () => [InputTextPartResponse], description: 'message only' }) content?: InputTextPartResponse[];
  @ApiPropertyOptional({ description: 'function_call_output only' }) call_id?: string;
  @ApiPropertyOptional({ description: 'function_call_output only' }) output?: string;
}

@ApiSchema({ name: 'ResponseInputItemList' })
export class InputItemListResponse {
  @ApiProperty({ enum: ['list'] }) object!: 'list';
  @ApiProperty({ type: () => [InputItemResponse] }) data!: unknown[];
  @ApiProperty({ type: String, nullable: true }) first_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id!: string | null;
  @ApiProperty() has_more!: boolean;
}

class OpenAiErrorBody {
  @ApiProperty() message!: string;
  @ApiProperty({ enum: ['invalid_request_error', 'authentication_error', 'rate_limit_error', 'server_error'] }) type!: string;
  @ApiProperty({ description: "The binding's error code (docs/api.md#errors)", example: 'VALIDATION_ERROR' }) code!: string;
  @ApiProperty({ type: String, nullable: true, description: 'The request field the error is about, when known' }) param!: string | null;
  @ApiPropertyOptional({ ...JSON_OBJECT, description: 'As `details` in the binding (e.g. `capabilities` on CAPABILITY_UNSUPPORTED)' })
  details?: Record<string, unknown>;
}

/** docs/responses-api.md#errors: OpenAI's error shape, so its SDKs raise their typed errors. */
@ApiSchema({ name: 'OpenAiErrorEnvelope' })
export class OpenAiErrorEnvelope {
  @ApiProperty({ type: () => OpenAiErrorBody }) error!: OpenAiErrorBody;
}
