import { Module } from '@nestjs/common';
import { ProvidersModule } from '../providers/providers.module';
import { RuntimeController } from './runtime.controller';

/** `GET /v1/runtime` and the provider manifests (docs/api.md#runtime-and-providers). */
@Module({ imports: [ProvidersModule], controllers: [RuntimeController] })
export class RuntimeModule {}
