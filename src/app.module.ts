import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { dtoValidationPipe } from './common/validation';
import { CONFIG, Config } from './config/config';
import { CreateConversationHandler } from './conversations/commands/create-conversation.handler';
import { ConversationsController } from './conversations/http/conversations.controller';
import { GetConversationHandler } from './conversations/queries/get-conversation.handler';
import { EventStoreModule } from './event-store/event-store.module';
import { CancelExecutionHandler } from './executions/commands/cancel-execution.handler';
import { RespondToActionHandler } from './executions/commands/respond-to-action.handler';
import { StartExecutionHandler } from './executions/commands/start-execution.handler';
import { EventStreamResponder } from './executions/http/event-stream.responder';
import { ExecutionEventsController } from './executions/http/execution-events.controller';
import { ExecutionItemsController } from './executions/http/execution-items.controller';
import { ExecutionsController } from './executions/http/executions.controller';
import { GetExecutionHandler } from './executions/queries/get-execution.handler';
import { ExecutionReader } from './executions/queries/execution-reader';
import { ListActionsHandler, ListArtifactsHandler } from './executions/queries/list-execution-items.handler';
import { ReplayEventsHandler } from './executions/queries/replay-events.handler';
import { ExecutionRunner } from './executions/runner/execution-runner';
import { InstanceLiveness } from './executions/instance-liveness';
import { OwnerFollower } from './executions/runner/owner-follower';
import { InterruptedExecutions } from './executions/runner/interrupted-executions';
import { HealthModule } from './health/health.module';
import { RestartSweepReadiness } from './health/restart-sweep.readiness';
import { ExecutionSearchController } from './executions/http/execution-search.controller';
import { SearchExecutionsHandler } from './executions/queries/search-executions.handler';
import { FeedController } from './feed/feed.controller';
import { MetricsModule } from './metrics/metrics.module';
import { FeedStreamResponder } from './feed/feed-stream.responder';
import { ReadFeedHandler } from './feed/read-feed.query';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { SseConnections } from './http/sse-connections';
import { StrictQueryGuard } from './http/strict-query';
import { ReadModelModule } from './projections/read-model.module';
import { ProviderRegistry } from './providers/provider-registry';
import { SchemaWorkerLifecycle } from './common/json-schema/schema-worker.lifecycle';
import { RuntimeController } from './runtime/runtime.controller';

@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        { module: class ConfigModule {}, global: true, providers: [{ provide: CONFIG, useValue: config }], exports: [CONFIG] },
        EventStoreModule,
        ReadModelModule,
        HealthModule,
        CqrsModule.forRoot(),
        MetricsModule,
      ],
      controllers: [
        RuntimeController,
        ConversationsController,
        ExecutionsController,
        ExecutionItemsController,
        ExecutionEventsController,
        ExecutionSearchController,
        FeedController,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_GUARD, useClass: StrictQueryGuard },
        { provide: APP_PIPE, useFactory: dtoValidationPipe },
        ProviderRegistry,
        SchemaWorkerLifecycle,
        ExecutionRunner,
        InterruptedExecutions,
        InstanceLiveness,
        OwnerFollower,
        RestartSweepReadiness,
        SseConnections,
        EventStreamResponder,
        CreateConversationHandler,
        GetConversationHandler,
        StartExecutionHandler,
        CancelExecutionHandler,
        RespondToActionHandler,
        GetExecutionHandler,
        ExecutionReader,
        ListActionsHandler,
        ListArtifactsHandler,
        ReplayEventsHandler,
        ReadFeedHandler,
        SearchExecutionsHandler,
        FeedStreamResponder,
      ],
    };
  }
}
