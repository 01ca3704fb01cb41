import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { CLOCK, Clock } from '../../common/clock';
import { QuotaExceededError } from '../../common/errors/request-errors';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { TenantTokensQuery } from '../../read-models/usage/usage.query';
import { monthOf, quotaRefusal } from '../../usage/domain/usage-period';
import { claimStream } from './idempotency-claims';

/**
 * TENANT_TOKEN_BUDGETS at the start of an execution (docs/api.md#usage-and-budgets): a tenant whose
 * month-to-date usage, as the usage read model has it, is at or over its budget cannot start one.
 * Runs already in flight are not counted until they end, so concurrent starts can overshoot.
 */
@Injectable()
export class TenantQuota {
  constructor(
    private readonly queries: QueryBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Pick<Config, 'tenantTokenBudgets'>,
  ) {}

  /**
   * Refuses with 429 QUOTA_EXCEEDED when the tenant's budget is used up. A start whose
   * idempotency key is already claimed is a replay (or a conflict, which the claim answers): never refused.
   */
  async check(tenantId: string, idempotencyKey: string | null): Promise<void> {
    const budget = this.config.tenantTokenBudgets.get(tenantId);
    if (budget === undefined) return;
    if (idempotencyKey !== null && (await this.store.streamHead(claimStream(tenantId, idempotencyKey))) !== null) return;
    const now = this.clock.now();
    const used = await this.queries.execute(new TenantTokensQuery(tenantId, monthOf(now)));
    const refusal = quotaRefusal({ used, budget }, now);
    if (!refusal) return;
    throw new QuotaExceededError(
      `the tenant has used ${used} of its ${budget} tokens this month (TENANT_TOKEN_BUDGETS); starts are refused until the month turns`,
      refusal.retryAfterSeconds,
      { used, budget },
    );
  }
}
