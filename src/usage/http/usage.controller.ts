import { Controller, Get, Inject, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../common/clock';
import { CONFIG, Config } from '../../config/config';
import { validationError } from '../../http/api-error';
import { isoInstantParam } from '../../http/iso-instant';
import { AllowQuery, integerParam } from '../../http/strict-query';
import { Tenant } from '../../http/tenant.decorator';
import { TenantTokensQuery, USAGE_GROUPINGS, UsageGrouping, UsageSummaryQuery } from '../../read-models/usage/usage.query';
import { monthOf } from '../domain/usage-period';
import { decodeUsageCursor, encodeUsageCursor } from './usage-cursor';
import { UsageDocs } from './usage.docs';
import { UsageBudgetResponse, UsageResponse } from './usage.response';

@Controller('v1/usage')
export class UsageController {
  constructor(
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Pick<Config, 'tenantTokenBudgets'>,
  ) {}

  @Get()
  @UsageDocs()
  @AllowQuery('from', 'to', 'groupBy', 'limit', 'cursor')
  async usage(@Tenant() tenantId: string, @Query() query: Record<string, string | undefined>): Promise<UsageResponse> {
    const month = monthOf(this.clock.now());
    const from = isoInstantParam(query.from, 'from') ?? month.from;
    const to = isoInstantParam(query.to, 'to') ?? month.to;
    if (from > to) throw validationError(`from (${from}) must not be after to (${to})`);
    const groupBy = (query.groupBy ?? 'provider') as UsageGrouping;
    if (!USAGE_GROUPINGS.includes(groupBy)) throw validationError(`groupBy must be one of ${USAGE_GROUPINGS.join(', ')}`);
    const limit = integerParam(query.limit, 'limit', 1, 100) ?? 20;
    const after = query.cursor === undefined ? undefined : decodeUsageCursor(query.cursor, groupBy);
    const summary = await this.queries.execute(new UsageSummaryQuery(tenantId, { from, to }, groupBy, limit, after));
    return {
      from,
      to,
      totals: summary.totals,
      budget: await this.budget(tenantId, month),
      groups: summary.groups,
      nextCursor: summary.lastKey === undefined ? null : encodeUsageCursor(groupBy, summary.lastKey),
    };
  }

  /** The tenant's monthly budget and what this month (whatever the window asked) has left of it. */
  private async budget(tenantId: string, month: { from: string; to: string }): Promise<UsageBudgetResponse | null> {
    const tokens = this.config.tenantTokenBudgets.get(tenantId);
    if (tokens === undefined) return null;
    const used = await this.queries.execute(new TenantTokensQuery(tenantId, month));
    return { tokens, remaining: Math.max(0, tokens - used) };
  }
}
