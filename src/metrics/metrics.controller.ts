import { Controller, Get, Header, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Metrics } from './metrics';
import { MetricsDocs } from './metrics.docs';

/** Prometheus scrape endpoint; like the health checks it needs no API key. */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: Metrics) {}

  @Get('metrics')
  @Header('cache-control', 'no-store')
  @MetricsDocs()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    await reply.header('content-type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
