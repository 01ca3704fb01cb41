import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { USAGE_GROUPINGS } from '../../read-models/usage/usage.query';
import { UsageResponse } from './usage.response';

/** GET /v1/usage (docs/api.md#usage-and-budgets). */
export const UsageDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'usage',
      summary: "The tenant's token usage in a window, summed and grouped",
      description:
        'Counts every execution of the tenant whose terminal event falls in [from, to), with the tokens that event recorded. ' +
        'Each bound left out is that bound of the current calendar month in UTC.',
      errors: ['STORE_UNAVAILABLE'],
    }),
    ApiQuery({
      name: 'from',
      required: false,
      schema: { type: 'string', format: 'date-time' },
      description: 'Inclusive; default the start of this month (UTC)',
    }),
    ApiQuery({ name: 'to', required: false, schema: { type: 'string', format: 'date-time' }, description: 'Exclusive; default the start of next month (UTC)' }),
    ApiQuery({ name: 'groupBy', required: false, schema: { type: 'string', enum: [...USAGE_GROUPINGS], default: 'provider' } }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, description: 'Groups per page' }),
    ApiQuery({ name: 'cursor', required: false, type: String, description: "A previous page's nextCursor" }),
    ApiOkResponse({ type: UsageResponse }),
  );
