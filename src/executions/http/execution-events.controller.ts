import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../../http/api-error';
import { wantsEventStream } from '../../http/accept';
import { AllowQuery, integerParam } from '../../http/strict-query';
import { Tenant } from '../../http/tenant.decorator';
import { EventsDocs } from './execution-events.docs';
import { ReplayEventsQuery } from '../queries/replay-events.query';
import { EventPageResponse } from './event.response';
import { EventStreamResponder } from './event-stream.responder';
import { ID } from './executions.controller';

/** docs/api.md#events: one URL, JSON replay or an SSE stream depending on `Accept`. */
@Controller('v1/executions')
export class ExecutionEventsController {
  constructor(
    private readonly queries: QueryBus,
    private readonly stream: EventStreamResponder,
  ) {}

  @Get(`${ID}/events`)
  @EventsDocs()
  @AllowQuery('after', 'limit')
  async events(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const limit = integerParam(query.limit, 'limit', 1, 1000);
    const lastEventId = request.headers['last-event-id'];
    if (!wantsEventStream(request.headers.accept)) {
      const after = integerParam(query.after, 'after', 0) ?? 0;
      const page: EventPageResponse = await this.queries.execute(new ReplayEventsQuery(tenantId, id, after, limit));
      await reply.send(page);
      return;
    }
    // limit does not apply to streams; after is ignored when Last-Event-ID is present.
    if (lastEventId === undefined) return this.stream.respond(reply, tenantId, id, integerParam(query.after, 'after', 0) ?? 0);
    if (Array.isArray(lastEventId) || !/^\d+$/.test(lastEventId) || !Number.isSafeInteger(Number(lastEventId))) {
      throw validationError('Last-Event-ID must be a non-negative integer');
    }
    return this.stream.respond(reply, tenantId, id, Number(lastEventId));
  }
}
