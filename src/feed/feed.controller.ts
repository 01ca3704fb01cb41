import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { validationError } from '../http/api-error';
import { wantsEventStream } from '../http/accept';
import { AllowQuery, integerParam } from '../http/strict-query';
import { Tenant } from '../http/tenant.decorator';
import { FeedDocs } from './feed.docs';
import { FeedPageResponse } from './feed.response';
import { FeedStreamResponder } from './feed-stream.responder';
import { ReadFeedQuery } from './read-feed.query';

/** The audit feed: every event the tenant owns, across executions and conversations, in global order. */
@Controller('v1/events')
export class FeedController {
  constructor(
    private readonly queries: QueryBus,
    private readonly stream: FeedStreamResponder,
  ) {}

  @Get()
  @FeedDocs()
  @AllowQuery('after', 'limit')
  async feed(@Tenant() tenantId: string, @Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const limit = integerParam(query.limit, 'limit', 1, 1000) ?? 1000;
    const lastEventId = request.headers['last-event-id'];
    if (!wantsEventStream(request.headers.accept)) {
      const after = integerParam(query.after, 'after', 0) ?? 0;
      const page: FeedPageResponse = await this.queries.execute(new ReadFeedQuery(tenantId, after, limit));
      await reply.send(page);
      return;
    }
    if (lastEventId === undefined) return this.stream.respond(reply, tenantId, integerParam(query.after, 'after', 0) ?? 0);
    if (Array.isArray(lastEventId) || !/^\d+$/.test(lastEventId) || !Number.isSafeInteger(Number(lastEventId))) {
      throw validationError('Last-Event-ID must be a non-negative integer');
    }
    return this.stream.respond(reply, tenantId, Number(lastEventId));
  }
}
