import { Global, Inject, Module, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { EventStoreGateway } from '../event-store/event-store-gateway';
import { PostgresEventStore } from '../event-store/postgres/postgres-event-store';
import { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { SseConnections } from '../http/sse-connections';
import { routeTemplate } from '../http/route-template';
import { projectionStatus } from '../read-models/projection-status';
import { Projector } from '../read-models/projector';
import { AppendMetrics } from './append-metrics';
import { Metrics } from './metrics';
import { MetricsController } from './metrics.controller';

/** Wires the metrics to what they measure: HTTP, the store, SSE streams and the projections. */
@Global()
@Module({ providers: [Metrics], controllers: [MetricsController], exports: [Metrics] })
export class MetricsModule implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly http: HttpAdapterHost,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projector: Projector,
    private readonly modules: ModuleRef,
  ) {}

  onModuleInit(): void {
    const { metrics, store, projector } = this;
    // SseModule's registry, looked up rather than imported: it lives beside the routes that use it.
    const sse = this.modules.get(SseConnections, { strict: false });
    if (store instanceof EventStoreGateway) {
      store.observe(new AppendMetrics(metrics));
      const adapter = store.inner;
      if (adapter instanceof SqliteEventStore || adapter instanceof PostgresEventStore) {
        adapter.onCommit = (appends, events) => {
          metrics.groupCommitAppends.observe(appends);
          metrics.groupCommitEvents.observe(events);
        };
      }
    }
    metrics.sources.openSseStreams = () => sse.size;
    metrics.sources.projectionLag = () => projectionStatus(projector, store);
    const fastify = this.http.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      // The route's pattern, not the URL: ids would make every request its own series.
      const pattern = request.routeOptions.url;
      const route = pattern === undefined ? 'unmatched' : routeTemplate(pattern);
      const seconds = reply.elapsedTime / 1000;
      // A stream lasts as long as its run or its client: among request latencies it would drown them.
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/event-stream')) metrics.sseStreamDuration.observe({ route }, seconds);
      else metrics.httpDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, seconds);
      done();
    });
  }
}
