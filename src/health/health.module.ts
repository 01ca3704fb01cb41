import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CoreReadiness } from './core-readiness';
import { HealthController } from './health.controller';
import { ProjectionsReadiness } from './projections.readiness';
import { ReadinessChecks } from './readiness-checks';
import { ShutdownState } from './shutdown-state';
import { StoreWriteProbe } from './store-write-probe';

/**
 * `/health/live` and `/health/ready`. Global so any module can add a readiness check
 * (ReadinessChecks) or ask whether the process is stopping (ShutdownState).
 */
@Global()
@Module({
  // Terminus would log every failed probe with its details; the controller logs changes instead.
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [ShutdownState, ReadinessChecks, CoreReadiness, StoreWriteProbe, ProjectionsReadiness],
  exports: [ShutdownState, ReadinessChecks],
})
export class HealthModule {}
