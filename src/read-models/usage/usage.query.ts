import { Query } from '@nestjs/cqrs';

export type UsageGrouping = 'provider' | 'model' | 'conversation' | 'day';

export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['provider', 'model', 'conversation', 'day'];

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  executions: number;
}

/** One group; `key` is null for executions whose provider named no model (groupBy=model). */
export interface UsageGroup extends UsageTotals {
  key: string | null;
}

export interface UsageWindow {
  /** Inclusive, as normalised ISO instants. */
  from: string;
  /** Exclusive. */
  to: string;
}

export interface UsageSummary {
  totals: UsageTotals;
  groups: UsageGroup[];
  /** The last key of this page when there are more groups after it. */
  lastKey: string | null | undefined;
}

/**
 * The tenant's executions that ended in the window, summed and grouped (docs/api.md#usage-and-budgets);
 * groups in ascending key order, a page of `limit` after the key `after` (undefined: from the start).
 */
export class UsageSummaryQuery extends Query<UsageSummary> {
  constructor(
    readonly tenantId: string,
    readonly window: UsageWindow,
    readonly groupBy: UsageGrouping,
    readonly limit: number,
    readonly after?: { key: string | null },
  ) {
    super();
  }
}

/** Input plus output tokens of the tenant's executions that ended in the window: what its budget is held to. */
export class TenantTokensQuery extends Query<number> {
  constructor(
    readonly tenantId: string,
    readonly window: UsageWindow,
  ) {
    super();
  }
}
