import { Module } from '@nestjs/common';
import { RestartSweepReadiness } from './runner/restart-sweep.readiness';
import { SseModule } from '../http/sse.module';
import { ProvidersModule } from '../providers/providers.module';
import { CancelExecutionHandler } from './commands/cancel-execution.handler';
import { RespondToActionHandler } from './commands/respond-to-action.handler';
import { StartExecutionHandler } from './commands/start-execution.handler';
import { TenantQuota } from './commands/tenant-quota';
import { EventStreamResponder } from './http/event-stream.responder';
import { ExecutionEventsController } from './http/execution-events.controller';
import { ExecutionItemsController } from './http/execution-items.controller';
import { ExecutionSearchController } from './http/execution-search.controller';
import { ExecutionsController } from './http/executions.controller';
import { ReplayEventsHandler } from './queries/replay-events.handler';
import { ExecutionRunner } from './runner/execution-runner';
import { InstanceLiveness } from './instance-liveness';
import { InterruptedExecutions } from './runner/interrupted-executions';
import { OwnerFollower } from './runner/owner-follower';
import { QueuedStarts } from './runner/queued-starts';

/**
 * Executions: their routes, the commands, the runner and what keeps it honest across restarts and
 * instances, and the replay of their streams. Their read models (search, actions, artifacts) are
 * in ReadModelsModule.
 */
@Module({
  imports: [ProvidersModule, SseModule],
  controllers: [ExecutionsController, ExecutionItemsController, ExecutionEventsController, ExecutionSearchController],
  providers: [
    ExecutionRunner,
    InterruptedExecutions,
    InstanceLiveness,
    OwnerFollower,
    QueuedStarts,
    RestartSweepReadiness,
    EventStreamResponder,
    StartExecutionHandler,
    TenantQuota,
    CancelExecutionHandler,
    RespondToActionHandler,
    ReplayEventsHandler,
  ],
})
export class ExecutionsModule {}
