import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiHeader, ApiOkResponse, ApiProduces, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import { RouteDocs } from '../openapi/route-docs';
import { FeedPageResponse } from './feed.response';

/** The audit feed: every event the tenant owns, in global order; JSON pages or a live SSE stream. */
export const FeedDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'events',
      summary: "The audit feed: every event of the tenant's executions and conversations, in global order",
      description:
        'Without `text/event-stream` in `Accept`: the events after `after` (a global position), `limit` at a time. ' +
        'With it: a live SSE stream that never ends on its own; each message has `id` = position, so `Last-Event-ID` resumes.',
    }),
    ApiQuery({ name: 'after', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Cursor: a global position' }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 1000 }, description: 'JSON only' }),
    ApiHeader({ name: 'Accept', required: false, description: 'Include `text/event-stream` for the SSE stream' }),
    ApiHeader({ name: 'Last-Event-ID', required: false, description: 'SSE only: the cursor; wins over `after`' }),
    ApiExtraModels(FeedPageResponse),
    ApiProduces('application/json', 'text/event-stream'),
    ApiOkResponse({
      description: 'A page (application/json), or the live stream (text/event-stream)',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(FeedPageResponse) } },
        'text/event-stream': { schema: { type: 'string', description: 'SSE messages; each `data:` line is one FeedEvent as JSON' } },
      },
    }),
  );
