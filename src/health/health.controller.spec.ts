import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import pino from 'pino';
import { Writable } from 'node:stream';
import { RequestLog } from '../observability/request-context';
import { HealthController } from './health.controller';
import { ReadinessChecks } from './readiness-checks';

@Module({ imports: [TerminusModule], controllers: [HealthController], providers: [ReadinessChecks] })
class HealthOnly {}

describe('HealthController', () => {
  it("logs a readiness check that throws on the probe's own request logger, with its reqId", async () => {
    const moduleRef = await NestFactory.createApplicationContext(HealthOnly, { logger: false });
    moduleRef.get(ReadinessChecks).add('flaky', () => {
      throw new Error('boom');
    });
    const written: string[] = [];
    const sink = new Writable({ write: (chunk, _encoding, done) => (written.push(String(chunk)), done()) });
    const log = new RequestLog(pino(sink).child({ reqId: 'probe-1' }));

    await expect(moduleRef.get(HealthController).ready(log)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });

    const lines = written.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ reqId: 'probe-1', context: 'Health', msg: 'readiness check flaky threw: boom' }));
    await moduleRef.close();
  });
});
