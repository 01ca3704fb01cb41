import { Module } from '@nestjs/common';
import { UsageController } from './http/usage.controller';

/** `GET /v1/usage` over the usage read model (docs/api.md#usage-and-budgets). */
@Module({ controllers: [UsageController] })
export class UsageModule {}
