import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../openapi/error-responses';
import { HealthResultResponse } from './health.response';

// `security: []`: the probes need no key even when auth is on.
export const LiveDocs = () =>
  applyDecorators(
    ApiTags('health'),
    ApiOperation({ summary: 'Liveness: the process answers', security: [] }),
    ApiOkResponse({ type: HealthResultResponse }),
    ApiErrors('VALIDATION_ERROR', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR'),
  );

export const ReadyDocs = () =>
  applyDecorators(
    ApiTags('health'),
    ApiOperation({
      summary: 'Readiness: send traffic here?',
      description:
        'Ready when the event store answers a read and takes writes, the restart sweep of executions left in flight is done, ' +
        'every registered check passes (e.g. projections not far behind), and the process is not shutting down: it turns ' +
        'not-ready as soon as SIGTERM arrives.',
      security: [],
    }),
    ApiOkResponse({ type: HealthResultResponse }),
    ApiErrors('VALIDATION_ERROR', 'REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'NOT_READY', 'INTERNAL_ERROR'),
  );
