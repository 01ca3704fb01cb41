import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { RUN_FAILURE_CODES } from '../domain/end-codes';
import { EXECUTION_STATUSES, ExecutionSearchPageResponse } from './execution.response';

/** Search of the tenant's executions: filters combine with AND, newest first, cursor pages. */
export const SearchExecutionsDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'executions',
      summary: "Search the tenant's executions, newest first",
      description: 'Every filter is optional and they combine with AND. Pages follow `nextCursor`.',
      errors: ['STORE_UNAVAILABLE'],
    }),
    ApiQuery({ name: 'conversationId', required: false, type: String }),
    ApiQuery({ name: 'status', required: false, enum: EXECUTION_STATUSES }),
    ApiQuery({ name: 'provider', required: false, type: String }),
    ApiQuery({ name: 'errorCode', required: false, enum: RUN_FAILURE_CODES, description: 'Only executions that failed with this `run.failed` code' }),
    ApiQuery({ name: 'createdAfter', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'createdBefore', required: false, schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'cursor', required: false, type: String, description: "A previous page's nextCursor" }),
    ApiOkResponse({ type: ExecutionSearchPageResponse }),
  );
