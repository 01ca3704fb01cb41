import { AppendResult, NewEvent, StoreUnavailableError } from '../event-store/event-store';
import { AppendObserver } from '../event-store/event-store-gateway';
import { TERMINAL_STATUS_OF, isTerminalEvent } from '../executions/domain/execution-events';
import { executionIdOf, isExecutionStream } from '../executions/execution-stream';
import { failureCodeLabel } from '../executions/domain/end-codes';
import { Metrics } from './metrics';

/**
 * Appends as metrics: events, latency, refusals, and the executions' lifecycle read off the
 * events themselves (queued, ended by status, tokens), so every writer is counted alike.
 */
export class AppendMetrics implements AppendObserver {
  /** Providers of executions this process saw start, for labelling their end; forgotten at the end. */
  private readonly providerOf = new Map<string, string>();

  constructor(private readonly metrics: Metrics) {}

  appended(streamId: string, events: readonly NewEvent[], _result: AppendResult, durationMs: number): void {
    this.metrics.eventsAppended.inc(events.length);
    this.metrics.appendDuration.observe(durationMs / 1000);
    if (!isExecutionStream(streamId)) return;
    const id = executionIdOf(streamId);
    for (const event of events) {
      if (event.type === 'run.queued' || event.type === 'run.started') {
        const provider = String(event.data.provider);
        if (event.type === 'run.queued') this.metrics.executionsStarted.inc({ provider });
        this.providerOf.set(id, provider);
      } else if (isTerminalEvent(event.type)) {
        // Runs that an earlier process started (ended by the restart sweep) have no known provider.
        const provider = this.providerOf.get(id) ?? 'unknown';
        this.providerOf.delete(id);
        this.metrics.executionsEnded.inc({ status: TERMINAL_STATUS_OF[event.type], provider });
        if (event.type === 'run.failed') {
          const code = (event.data.error as { code?: unknown } | undefined)?.code;
          this.metrics.executionsFailed.inc({ code: failureCodeLabel(String(code)) });
        }
        const usage = event.data.usage as { inputTokens: number; outputTokens: number } | null | undefined;
        if (usage) {
          this.metrics.tokens.inc({ provider, direction: 'input' }, usage.inputTokens);
          this.metrics.tokens.inc({ provider, direction: 'output' }, usage.outputTokens);
        }
      }
    }
  }

  refused(_error: StoreUnavailableError): void {
    this.metrics.appendRefusals.inc();
  }
}
