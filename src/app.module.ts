import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { SchemaWorkerLifecycle } from './common/json-schema/schema-worker.lifecycle';
import { dtoValidationPipe } from './common/validation';
import { CONFIG, Config } from './config/config';
import { CLOCK, systemClock } from './common/clock';
import { ConversationsModule } from './conversations/conversations.module';
import { EventStoreModule } from './event-store/event-store.module';
import { ExecutionsModule } from './executions/executions.module';
import { FeedModule } from './feed/feed.module';
import { HealthModule } from './health/health.module';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { StrictQueryGuard } from './http/strict-query';
import { MetricsModule } from './metrics/metrics.module';
import { ReadModelsModule } from './read-models/read-models.module';
import { ResponsesModule } from './responses/responses.module';
import { RuntimeModule } from './runtime/runtime.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** The application: the configuration, the store and the read models under the feature modules, and the HTTP conventions every route shares. */
@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        {
          module: class ConfigModule {},
          global: true,
          providers: [
            { provide: CONFIG, useValue: config },
            { provide: CLOCK, useValue: config.clock ?? systemClock },
          ],
          exports: [CONFIG, CLOCK],
        },
        EventStoreModule,
        ReadModelsModule,
        HealthModule,
        CqrsModule.forRoot(),
        MetricsModule,
        RuntimeModule,
        ConversationsModule,
        ExecutionsModule,
        FeedModule,
        ResponsesModule,
        UsageModule,
        WebhooksModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_GUARD, useClass: StrictQueryGuard },
        { provide: APP_PIPE, useFactory: dtoValidationPipe },
        SchemaWorkerLifecycle,
      ],
    };
  }
}
