import { Module } from '@nestjs/common';
import { SseModule } from '../http/sse.module';
import { ProvidersModule } from '../providers/providers.module';
import { ContinueResponse } from './continue-response';
import { ResponseStreamResponder } from './http/response-stream.responder';
import { ResponsesController } from './http/responses.controller';
import { ResponseActions } from './response-actions';
import { ResponseReader } from './response-reader';
import { StartResponse } from './start-response';

/** The OpenAI Responses API over executions (docs/responses-api.md): routes only, on the executions' commands and log. */
@Module({
  imports: [ProvidersModule, SseModule],
  controllers: [ResponsesController],
  providers: [ResponseReader, StartResponse, ContinueResponse, ResponseActions, ResponseStreamResponder],
})
export class ResponsesModule {}
