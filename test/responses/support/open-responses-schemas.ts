import Ajv, { ValidateFunction } from 'ajv';

/**
 * JSON Schemas written from the Open Responses specification (https://www.openresponses.org,
 * schema/components/schemas: ResponseResource, Message, OutputTextContent, FunctionCall, Usage and
 * the streaming events): required fields, types and enumerations. Every response object and stream
 * event the suites receive is checked against them, beyond the SDK merely parsing it.
 */
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });
const int = { type: 'integer' };
const str = { type: 'string' };

const outputText = {
  type: 'object',
  required: ['type', 'text', 'annotations', 'logprobs'],
  properties: { type: { const: 'output_text' }, text: str, annotations: { type: 'array' }, logprobs: { type: 'array' } },
};
const itemStatus = { enum: ['in_progress', 'completed', 'incomplete'] };
const message = {
  type: 'object',
  required: ['type', 'id', 'status', 'role', 'content'],
  properties: { type: { const: 'message' }, id: str, status: itemStatus, role: { enum: ['assistant'] }, content: { type: 'array', items: outputText } },
};
const functionCall = {
  type: 'object',
  required: ['type', 'id', 'call_id', 'name', 'arguments', 'status'],
  properties: { type: { const: 'function_call' }, id: str, call_id: str, name: str, arguments: str, status: itemStatus },
};
const outputItem = { oneOf: [message, functionCall] };
const usage = {
  type: 'object',
  required: ['input_tokens', 'output_tokens', 'total_tokens', 'input_tokens_details', 'output_tokens_details'],
  properties: {
    input_tokens: int,
    output_tokens: int,
    total_tokens: int,
    input_tokens_details: { type: 'object', required: ['cached_tokens'], properties: { cached_tokens: int } },
    output_tokens_details: { type: 'object', required: ['reasoning_tokens'], properties: { reasoning_tokens: int } },
  },
};
const functionTool = {
  type: 'object',
  required: ['type', 'name', 'parameters', 'strict'],
  properties: {
    type: { const: 'function' },
    name: str,
    description: nullable(str),
    parameters: nullable({ type: 'object' }),
    strict: nullable({ type: 'boolean' }),
  },
};

export const responseSchema = {
  type: 'object',
  required: [
    'id',
    'object',
    'created_at',
    'completed_at',
    'status',
    'incomplete_details',
    'model',
    'previous_response_id',
    'instructions',
    'output',
    'error',
    'tools',
    'tool_choice',
    'truncation',
    'parallel_tool_calls',
    'text',
    'top_p',
    'presence_penalty',
    'frequency_penalty',
    'top_logprobs',
    'temperature',
    'reasoning',
    'user',
    'usage',
    'max_output_tokens',
    'max_tool_calls',
    'store',
    'background',
    'service_tier',
    'metadata',
    'safety_identifier',
    'prompt_cache_key',
  ],
  properties: {
    id: str,
    object: { const: 'response' },
    created_at: int,
    completed_at: nullable(int),
    status: { enum: ['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'incomplete'] },
    incomplete_details: nullable({ type: 'object', required: ['reason'], properties: { reason: str } }),
    model: str,
    previous_response_id: nullable(str),
    instructions: nullable(str),
    output: { type: 'array', items: outputItem },
    error: nullable({ type: 'object', required: ['code', 'message'], properties: { code: str, message: str } }),
    tools: { type: 'array', items: functionTool },
    tool_choice: { anyOf: [{ enum: ['none', 'auto', 'required'] }, { type: 'object' }] },
    truncation: { enum: ['auto', 'disabled'] },
    parallel_tool_calls: { type: 'boolean' },
    text: { type: 'object' },
    top_p: { type: 'number' },
    presence_penalty: { type: 'number' },
    frequency_penalty: { type: 'number' },
    top_logprobs: int,
    temperature: { type: 'number' },
    reasoning: nullable({ type: 'object' }),
    user: nullable(str),
    usage: nullable(usage),
    max_output_tokens: nullable(int),
    max_tool_calls: nullable(int),
    store: { type: 'boolean' },
    background: { type: 'boolean' },
    service_tier: str,
    metadata: { type: 'object', additionalProperties: str, maxProperties: 16 },
    safety_identifier: nullable(str),
    prompt_cache_key: nullable(str),
  },
};

const event = (type: string, required: string[], properties: Record<string, unknown>) => ({
  type: 'object',
  required: ['type', 'sequence_number', ...required],
  properties: { type: { const: type }, sequence_number: int, ...properties },
});
const itemRef = { item_id: str, output_index: int };
const lifecycle = (type: string) => event(type, ['response'], { response: responseSchema });

export const streamEventSchema = {
  oneOf: [
    ...['response.created', 'response.in_progress', 'response.completed', 'response.failed', 'response.incomplete', 'response.cancelled'].map(lifecycle),
    event('response.output_item.added', ['output_index', 'item'], { output_index: int, item: outputItem }),
    event('response.output_item.done', ['output_index', 'item'], { output_index: int, item: outputItem }),
    event('response.content_part.added', ['item_id', 'output_index', 'content_index', 'part'], { ...itemRef, content_index: int, part: outputText }),
    event('response.content_part.done', ['item_id', 'output_index', 'content_index', 'part'], { ...itemRef, content_index: int, part: outputText }),
    event('response.output_text.delta', ['item_id', 'output_index', 'content_index', 'delta', 'logprobs'], {
      ...itemRef,
      content_index: int,
      delta: str,
      logprobs: { type: 'array' },
    }),
    event('response.output_text.done', ['item_id', 'output_index', 'content_index', 'text', 'logprobs'], {
      ...itemRef,
      content_index: int,
      text: str,
      logprobs: { type: 'array' },
    }),
    event('response.function_call_arguments.delta', ['item_id', 'output_index', 'delta'], { ...itemRef, delta: str }),
    event('response.function_call_arguments.done', ['item_id', 'output_index', 'arguments'], { ...itemRef, arguments: str, name: str }),
  ],
};

export const errorSchema = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: { type: 'object', required: ['message', 'type', 'code', 'param'], properties: { message: str, type: str, code: str, param: nullable(str) } },
  },
};

const ajv = new Ajv({ strict: false, allErrors: true });
const validators: Record<'response' | 'event' | 'error', ValidateFunction> = {
  response: ajv.compile(responseSchema),
  event: ajv.compile(streamEventSchema),
  error: ajv.compile(errorSchema),
};

/** Throws with ajv's account when `value` does not keep the schema. */
export function expectValid(kind: 'response' | 'event' | 'error', value: unknown): void {
  const validate = validators[kind];
  if (!validate(value)) throw new Error(`not a valid ${kind}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 400)}`);
}
