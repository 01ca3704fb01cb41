import { Module } from '@nestjs/common';
import { SseConnections } from './sse-connections';

/** The one registry of open SSE responses, shared by the execution event streams and the audit feed. */
@Module({ providers: [SseConnections], exports: [SseConnections] })
export class SseModule {}
