import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiProduces, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { EventPageResponse } from './event.response';
import { ExecutionIdParam } from './executions.docs';

const SSE_EXAMPLE =
  'retry: 1000\n\n' +
  'id: 3\nevent: output.text.delta\n' +
  'data: {"executionId":"0190…","sequence":3,"type":"output.text.delta","occurredAt":"2026-09-02T10:00:00.000Z","data":{"delta":"Hel"}}\n\n' +
  ': keep-alive\n\n';

/** docs/api.md#events: one URL, JSON replay or an SSE stream depending on `Accept`. */
export const EventsDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'events',
      summary: "An execution's events: JSON replay, or a live SSE stream",
      description:
        'Without `text/event-stream` in `Accept`: the events after `after`, `limit` at a time (all of them without `limit`).\n\n' +
        'With it: `retry: 1000`, then the backlog after the cursor, then each new event as it is appended, one SSE message each ' +
        '(`id` = sequence, `event` = type, `data` = the event JSON); a `: keep-alive` comment at least every 15 s while idle; ' +
        'the response ends after the terminal event. The cursor is `Last-Event-ID` when present, else `after`, else 0; `limit` ' +
        'does not apply. An execution already ended with nothing after the cursor answers 204, so an EventSource stops there. ' +
        'Errors before the stream starts are ordinary JSON errors.',
      errors: ['NOT_FOUND'],
    }),
    ExecutionIdParam(),
    ApiQuery({ name: 'after', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Cursor: a sequence; only events after it' }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000 }, description: 'Page size (JSON replay only)' }),
    ApiHeader({ name: 'Accept', required: false, description: 'Include `text/event-stream` for the SSE stream' }),
    ApiHeader({ name: 'Last-Event-ID', required: false, description: 'SSE only: the cursor, a non-negative integer; wins over `after`' }),
    ApiExtraModels(EventPageResponse),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description: 'JSON replay (application/json), or the event stream (text/event-stream)',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(EventPageResponse) } },
        'text/event-stream': {
          schema: { type: 'string', description: 'SSE messages; each `data:` line is one Event as JSON' },
          example: SSE_EXAMPLE,
        },
      },
    }),
    ApiNoContentResponse({ description: 'SSE only: the execution has ended and nothing is left after the cursor' }),
  );
