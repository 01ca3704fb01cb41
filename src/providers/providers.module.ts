import { Module } from '@nestjs/common';
import { ProviderRegistry } from './provider-registry';

/** The providers this instance offers (docs/providers.md), for the runner, the start checks and /v1/providers. */
@Module({ providers: [ProviderRegistry], exports: [ProviderRegistry] })
export class ProvidersModule {}
