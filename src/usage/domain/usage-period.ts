/**
 * The calendar month in UTC that holds `now`, as the half-open window [from, to): the period of
 * tenant budgets and the default window of GET /v1/usage (docs/api.md#usage-and-budgets).
 */
export function monthOf(now: Date): { from: string; to: string } {
  const from = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const to = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** A tenant's token budget for the month, and what it has used of it. */
export interface TenantQuota {
  used: number;
  budget: number;
}

/**
 * Whether a start is refused (429 QUOTA_EXCEEDED): at or over the budget. The answer says how many
 * whole seconds remain until the month turns (at least 1), for Retry-After. Pure: `now` is passed in.
 */
export function quotaRefusal(quota: TenantQuota, now: Date): { retryAfterSeconds: number } | null {
  if (quota.used < quota.budget) return null;
  const turn = Date.parse(monthOf(now).to);
  return { retryAfterSeconds: Math.max(1, Math.ceil((turn - now.getTime()) / 1000)) };
}
