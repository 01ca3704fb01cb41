import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { validationError } from '../../http/api-error';
import { isoInstantParam } from '../../http/iso-instant';
import { AllowQuery, integerParam } from '../../http/strict-query';
import { Tenant } from '../../http/tenant.decorator';
import { SearchExecutionsDocs } from './execution-search.docs';
import { ExecutionSearchPageResponse } from './execution.response';
import { ExecutionStatus } from '../domain/execution-state';
import { RUN_FAILURE_CODES } from '../domain/end-codes';
import { decodeCursor } from '../../read-models/executions/search-cursor';
import { SearchExecutionsQuery } from '../../read-models/executions/search-executions.query';

const STATUSES: readonly ExecutionStatus[] = ['queued', 'running', 'requires_action', 'completed', 'failed', 'cancelled'];

/** Search (newest first, cursor pages); every filter is optional and they combine with AND. */
@Controller('v1/executions')
export class ExecutionSearchController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @SearchExecutionsDocs()
  @AllowQuery('conversationId', 'status', 'provider', 'errorCode', 'createdAfter', 'createdBefore', 'limit', 'cursor')
  async search(@Tenant() tenantId: string, @Query() query: Record<string, string | undefined>): Promise<ExecutionSearchPageResponse> {
    if (query.status !== undefined && !STATUSES.includes(query.status as ExecutionStatus)) {
      throw validationError(`status must be one of ${STATUSES.join(', ')}`);
    }
    if (query.errorCode !== undefined && !(RUN_FAILURE_CODES as readonly string[]).includes(query.errorCode)) {
      throw validationError(`errorCode must be one of ${RUN_FAILURE_CODES.join(', ')}`);
    }
    return this.queries.execute(
      new SearchExecutionsQuery(tenantId, {
        conversationId: query.conversationId,
        status: query.status as ExecutionStatus | undefined,
        provider: query.provider,
        errorCode: query.errorCode,
        createdAfter: isoInstantParam(query.createdAfter, 'createdAfter'),
        createdBefore: isoInstantParam(query.createdBefore, 'createdBefore'),
        limit: integerParam(query.limit, 'limit', 1, 100) ?? 20,
        beforePosition: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
      }),
    );
  }
}
