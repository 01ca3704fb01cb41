import { Injectable, OnModuleInit } from '@nestjs/common';
import { InterruptedExecutions } from './interrupted-executions';
import { ReadinessChecks } from '../../health/readiness-checks';

/**
 * Not ready until the executions an earlier process left in flight are ended: until then a
 * client could see one "running" that nothing drives. Lives in ExecutionsModule because
 * InterruptedExecutions is one of them.
 */
@Injectable()
export class RestartSweepReadiness implements OnModuleInit {
  constructor(
    private readonly checks: ReadinessChecks,
    private readonly sweep: InterruptedExecutions,
  ) {}

  onModuleInit(): void {
    this.checks.add('restartSweep', () =>
      this.sweep.pending ? { ready: false, message: 'executions left in flight by an earlier process are not ended yet' } : { ready: true },
    );
  }
}
