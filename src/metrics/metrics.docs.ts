import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../openapi/error-responses';

// `security: []`: a scraper needs no key, like the health probes.
export const MetricsDocs = () =>
  applyDecorators(
    ApiTags('operations'),
    ApiOperation({
      summary: 'Prometheus metrics in the text exposition format',
      description:
        'HTTP request duration by route and status; events appended, append latency and group-commit size; open SSE streams; ' +
        'executions started and ended by status and provider; tokens by provider and direction; projection lag; process metrics.',
      security: [],
    }),
    ApiProduces('text/plain'),
    ApiOkResponse({ description: 'Metrics', schema: { type: 'string' } }),
    ApiErrors('VALIDATION_ERROR', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR'),
  );
