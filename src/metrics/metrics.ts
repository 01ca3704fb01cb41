import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric of one app instance, in its own registry (tests start many apps in one process,
 * and prom-client's global registry would mix them).
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  /** What the gauges read at scrape time; the metrics module points them at their sources. */
  readonly sources = {
    openSseStreams: (): number => 0,
    projectionLag: async (): Promise<{ name: string; lag: number }[]> => [],
    webhookOldestPending: (): { webhook: string; seconds: number }[] => [],
  };

  readonly httpDuration = new Histogram({
    name: 'runledger_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly sseStreamDuration = new Histogram({
    name: 'runledger_sse_stream_duration_seconds',
    help: 'How long SSE streams stayed open, by route (they are not in the request duration)',
    labelNames: ['route'] as const,
    buckets: [1, 5, 15, 60, 300, 900, 3600, 14400],
    registers: [this.registry],
  });

  readonly eventsAppended = new Counter({
    name: 'runledger_events_appended_total',
    help: 'Events appended to the event store',
    registers: [this.registry],
  });

  readonly appendRefusals = new Counter({
    name: 'runledger_append_refusals_total',
    help: 'Appends the event store refused as unavailable',
    registers: [this.registry],
  });

  readonly appendDuration = new Histogram({
    name: 'runledger_append_duration_seconds',
    help: 'Latency of one append, from request to acknowledgement',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });

  readonly groupCommitAppends = new Histogram({
    name: 'runledger_group_commit_appends',
    help: 'Appends committed together in one transaction (SQLite or PostgreSQL)',
    buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
    registers: [this.registry],
  });

  readonly groupCommitEvents = new Histogram({
    name: 'runledger_group_commit_events',
    help: 'Events committed together in one transaction (SQLite or PostgreSQL)',
    buckets: [1, 5, 10, 50, 100, 500, 1000, 5000],
    registers: [this.registry],
  });

  readonly openSseStreams: Gauge = new Gauge({
    name: 'runledger_sse_streams_open',
    help: 'Open SSE streams (execution events and the audit feed)',
    registers: [this.registry],
    collect: () => this.openSseStreams.set(this.sources.openSseStreams()),
  });

  readonly executionsStarted = new Counter({
    name: 'runledger_executions_started_total',
    help: 'Executions queued, by provider',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });

  readonly executionsEnded = new Counter({
    name: 'runledger_executions_ended_total',
    help: 'Executions ended, by status and provider',
    labelNames: ['status', 'provider'] as const,
    registers: [this.registry],
  });

  /** Failed runs by their `run.failed` code: the label takes only RUN_FAILURE_CODES and OTHER. */
  readonly executionsFailed = new Counter({
    name: 'runledger_executions_failed_total',
    help: 'Executions ended by run.failed, by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly tokens = new Counter({
    name: 'runledger_tokens_total',
    help: 'Tokens providers reported, by provider and direction',
    labelNames: ['provider', 'direction'] as const,
    registers: [this.registry],
  });

  readonly projectionLag: Gauge<'projection'> = new Gauge({
    name: 'runledger_projection_lag_events',
    help: 'Events a projection has still to apply',
    labelNames: ['projection'] as const,
    registers: [this.registry],
    collect: async () => {
      for (const { name, lag } of await this.sources.projectionLag()) this.projectionLag.set({ projection: name }, lag);
    },
  });

  readonly webhookAttempts = new Counter({
    name: 'runledger_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered, retrying, failed) and the status answered (none: no answer)',
    labelNames: ['outcome', 'status'] as const,
    registers: [this.registry],
  });

  readonly webhookAttemptDuration = new Histogram({
    name: 'runledger_webhook_attempt_duration_seconds',
    help: 'Latency of one webhook delivery attempt, from sending to the answer',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [this.registry],
  });

  readonly webhookOldestPending: Gauge<'webhook'> = new Gauge({
    name: 'runledger_webhook_oldest_pending_seconds',
    help: 'Age of the oldest event an endpoint delivered by this instance has read but not settled',
    labelNames: ['webhook'] as const,
    registers: [this.registry],
    collect: () => {
      this.webhookOldestPending.reset();
      for (const { webhook, seconds } of this.sources.webhookOldestPending()) this.webhookOldestPending.set({ webhook }, seconds);
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
