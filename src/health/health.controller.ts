import { Controller, Get, Logger, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckResult, HealthCheckService, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { ApiError } from '../http/api-error';
import { CurrentRequestLog } from '../http/request-log.decorator';
import { linesOn, type RequestLog } from '../observability/request-context';
import { LiveDocs, ReadyDocs } from './health.docs';
import { ReadinessCheck, ReadinessChecks } from './readiness-checks';

/**
 * Probes for orchestrators and load balancers; they need no key (the auth hook exempts them).
 * Liveness is the process answering. Readiness runs every registered check through terminus and
 * answers 503 in the binding's envelope, naming the checks that failed.
 */
@Controller('health')
export class HealthController {
  private readonly logger = new Logger('Health');
  /** Logged when readiness changes, not on every probe: probes come every few seconds. */
  private lastReady: boolean | null = null;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly checks: ReadinessChecks,
  ) {}

  /**
   * Not terminus's `check()`: that turns 503 once shutdown begins, and a liveness failure while
   * the process drains would only make the orchestrator kill it early.
   */
  @Get('live')
  @LiveDocs()
  live(): HealthCheckResult {
    const up = this.indicators.check('process').up({ uptimeSeconds: Math.floor(process.uptime()) });
    return { status: 'ok', info: up, error: {}, details: up };
  }

  @Get('ready')
  @ReadyDocs()
  async ready(@CurrentRequestLog() log?: RequestLog): Promise<HealthCheckResult> {
    try {
      const result = await this.health.check(
        this.checks.entries().map(
          ([name, check]) =>
            () =>
              this.run(name, check, log),
        ),
      );
      this.changed(true, result);
      return result;
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      this.changed(false, result);
      throw notReady(result);
    }
  }

  private async run(name: string, check: ReadinessCheck, log: RequestLog | undefined): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(name);
    try {
      const { ready, ...detail } = await check();
      return ready ? session.up(detail) : session.down(detail);
    } catch (error) {
      // On the probe's logger, so the line carries its reqId; made only when a check throws.
      (log ? linesOn(log.logger, 'Health') : this.logger).warn(`readiness check ${name} threw: ${(error as Error).message}`);
      return session.down({ message: 'the check failed' });
    }
  }

  private changed(ready: boolean, result: HealthCheckResult): void {
    if (ready === this.lastReady) return;
    this.lastReady = ready;
    if (ready) this.logger.log('ready');
    else this.logger.warn(`not ready: ${failedChecks(result).join(', ')}`);
  }
}

/** Terminus's own `shutting_down` status may come before any check has failed. */
const failedChecks = (result: HealthCheckResult): string[] => {
  const failed = Object.keys(result.error ?? {});
  return failed.length === 0 && result.status === 'shutting_down' ? ['shutdown'] : failed;
};

/** 503 SERVICE_UNAVAILABLE in the binding's envelope (the filter adds Retry-After). */
function notReady(result: HealthCheckResult): ApiError {
  const failed = failedChecks(result);
  return new ApiError('SERVICE_UNAVAILABLE', `not ready: ${failed.join(', ')}`, { failed, checks: result.details });
}
