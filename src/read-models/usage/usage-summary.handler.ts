import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadConsistency } from '../read-consistency';
import { UsageReadModel } from './usage.read-model';
import { TenantTokensQuery, UsageSummary, UsageSummaryQuery } from './usage.query';

@QueryHandler(UsageSummaryQuery)
export class UsageSummaryHandler implements IQueryHandler<UsageSummaryQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly usage: UsageReadModel,
  ) {}

  async execute({ tenantId, window, groupBy, limit, after }: UsageSummaryQuery): Promise<UsageSummary> {
    // Read-your-writes: a run this instance ended is counted (docs/design.md#read-models-and-consistency).
    await this.consistency.caughtUp();
    const totals = this.usage.totals(tenantId, window);
    const afterKey = after === undefined ? null : (after.key ?? '');
    const rows = this.usage.groups(tenantId, window, groupBy, afterKey, limit + 1);
    const groups = rows.slice(0, limit);
    return { totals, groups, lastKey: rows.length > limit ? groups[groups.length - 1].key : undefined };
  }
}

@QueryHandler(TenantTokensQuery)
export class TenantTokensHandler implements IQueryHandler<TenantTokensQuery> {
  constructor(
    private readonly consistency: ReadConsistency,
    private readonly usage: UsageReadModel,
  ) {}

  async execute({ tenantId, window }: TenantTokensQuery): Promise<number> {
    await this.consistency.caughtUp();
    const { inputTokens, outputTokens } = this.usage.totals(tenantId, window);
    return inputTokens + outputTokens;
  }
}
