import { Module } from '@nestjs/common';
import { SseModule } from '../http/sse.module';
import { FeedStreamResponder } from './feed-stream.responder';
import { FeedController } from './feed.controller';
import { ReadFeedHandler } from './read-feed.query';

/** The tenant's audit feed (docs/api.md#audit-feed): read from the log itself, not from a read model. */
@Module({ imports: [SseModule], controllers: [FeedController], providers: [ReadFeedHandler, FeedStreamResponder] })
export class FeedModule {}
