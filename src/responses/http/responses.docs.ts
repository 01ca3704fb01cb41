import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiParam, ApiProduces, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import type { ErrorCase } from '../../openapi/error-responses';
import { RouteDocs, RouteDocsOptions } from '../../openapi/route-docs';
import { InputItemListResponse, OpenAiErrorEnvelope, ResponseObjectResponse } from './response.response';

const envelope = {
  type: OpenAiErrorEnvelope,
  example: (c: ErrorCase) => ({ error: { message: c.when, type: c.status >= 500 ? 'server_error' : 'invalid_request_error', code: c.code, param: null } }),
};
const docs = (options: Omit<RouteDocsOptions, 'tag' | 'envelope'>) => RouteDocs({ ...options, tag: 'responses', envelope });

const IdParam = () => ApiParam({ name: 'id', description: '`resp_<execution id>` (first turn) or `resp_<execution id>_<n>` (docs/responses-api.md#ids)' });

const SSE_EXAMPLE =
  'retry: 1000\n\n' +
  'id: 4\nevent: response.output_text.delta\n' +
  'data: {"type":"response.output_text.delta","item_id":"msg_0190…_2","output_index":0,"content_index":0,"delta":"Hel","logprobs":[],"sequence_number":4}\n\n';

/** The Response as JSON, or its stream. `allOf` keeps the JSON answer from reading as a page of stream items. */
const responseOrStream = (description: string) =>
  ApiOkResponse({
    description,
    content: {
      'application/json': { schema: { allOf: [{ $ref: getSchemaPath(ResponseObjectResponse) }] } },
      'text/event-stream': {
        schema: { type: 'string', description: 'SSE: `event` the type, `data` the event JSON with its `sequence_number`' },
        example: SSE_EXAMPLE,
      },
    },
  });

const CREATE_BODY = {
  type: 'object',
  required: ['model', 'input'],
  properties: {
    model: { type: 'string', description: 'A provider id, or <provider id>/<model>' },
    input: { oneOf: [{ type: 'string' }, { type: 'array', maxItems: 100, items: { type: 'object', additionalProperties: true } }] },
    instructions: { type: 'string', nullable: true },
    tools: { type: 'array', maxItems: 64, nullable: true, items: { type: 'object', additionalProperties: true } },
    tool_choice: { type: 'string', enum: ['auto', 'none'], nullable: true },
    temperature: { type: 'number', minimum: 0, maximum: 2, nullable: true },
    max_output_tokens: { type: 'integer', minimum: 1, nullable: true },
    metadata: { type: 'object', additionalProperties: { type: 'string', maxLength: 512 }, maxProperties: 16, nullable: true },
    previous_response_id: { type: 'string', nullable: true },
    conversation: { type: 'string', nullable: true, description: 'A Runledger conversation id' },
    stream: { type: 'boolean', nullable: true },
    background: { type: 'boolean', nullable: true },
    store: { type: 'boolean', enum: [true], nullable: true },
    parallel_tool_calls: { type: 'boolean', enum: [true], nullable: true },
    truncation: { type: 'string', enum: ['disabled'], nullable: true },
  },
  additionalProperties: false,
};

export const CreateResponseDocs = () =>
  applyDecorators(
    docs({
      summary: 'Create a response (an execution, or the next turn of one)',
      description:
        'Without function_call_output items: a new execution on the provider `model` names, in `conversation`, in the conversation of ' +
        '`previous_response_id`, or in a new one. With them: answers the pending function calls of `previous_response_id` and ' +
        'continues that execution as its next turn. `stream: true` answers the stream; `background: true` answers at once; else the ' +
        'answer waits for the response to end. See docs/responses-api.md.',
      body: true,
      errors: ['NOT_FOUND', 'PROVIDER_NOT_FOUND', 'CAPABILITY_UNSUPPORTED', 'INVALID_STATE', 'ACTION_ALREADY_RESOLVED', 'STORE_UNAVAILABLE'],
    }),
    ApiBody({ schema: CREATE_BODY as object }),
    ApiProduces('application/json', 'text/event-stream'),
    responseOrStream('The response (ended, or queued with `background`), or its stream with `stream: true`'),
  );

export const GetResponseDocs = () =>
  applyDecorators(
    docs({ summary: 'A response; with stream=true its stream, replayed after starting_after and followed live', errors: ['NOT_FOUND'] }),
    IdParam(),
    ApiQuery({ name: 'stream', required: false, schema: { type: 'string', enum: ['true', 'false'] } }),
    ApiQuery({
      name: 'starting_after',
      required: false,
      schema: { type: 'integer', minimum: 0 },
      description: 'Stream only: events after this sequence_number',
    }),
    ApiProduces('application/json', 'text/event-stream'),
    responseOrStream('The response, or its stream (an empty stream when nothing is left after starting_after)'),
  );

export const CancelResponseDocs = () =>
  applyDecorators(
    docs({
      summary: "Cancel a response: the execution's cancel; an ended response is answered as it is",
      body: true,
      errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
    }),
    IdParam(),
    ApiBody({ required: false, description: 'None, or an empty object', schema: { type: 'object', additionalProperties: false, maxProperties: 0 } }),
    ApiOkResponse({ type: ResponseObjectResponse }),
  );

export const InputItemsDocs = () =>
  applyDecorators(
    docs({ summary: "The response's input items", errors: ['NOT_FOUND'] }),
    IdParam(),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'order', required: false, schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } }),
    ApiQuery({ name: 'after', required: false, schema: { type: 'string' }, description: 'An item id: the items after it' }),
    ApiOkResponse({ type: InputItemListResponse }),
  );
