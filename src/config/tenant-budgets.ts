import { TENANT_NAME_RULE, isTenantName } from '../auth/tenant-name';

/** The largest monthly budget one tenant may be given (docs/configuration.md). */
export const MAX_TENANT_BUDGET_TOKENS = 1_000_000_000_000_000;

/**
 * TENANT_TOKEN_BUDGETS=`acme:5000000,globex:200000`: per tenant, the input plus output tokens its
 * executions may spend per calendar month in UTC (docs/api.md#usage-and-budgets). Unset or empty:
 * no budgets. Every malformed entry is reported at start.
 */
export function readTenantBudgets(raw: string | undefined, problems: string[]): ReadonlyMap<string, number> {
  const budgets = new Map<string, number>();
  if (raw === undefined || raw.trim() === '') return budgets;
  for (const entry of raw.split(',').map((e) => e.trim())) {
    const [tenant, tokens, ...rest] = entry.split(':');
    if (rest.length > 0 || tokens === undefined || !isTenantName(tenant)) {
      problems.push(`TENANT_TOKEN_BUDGETS entry "${entry}" must be tenant:tokens (a tenant is ${TENANT_NAME_RULE})`);
      continue;
    }
    if (!/^\d+$/.test(tokens) || Number(tokens) < 1 || Number(tokens) > MAX_TENANT_BUDGET_TOKENS) {
      problems.push(`TENANT_TOKEN_BUDGETS entry "${entry}": tokens must be an integer from 1 to ${MAX_TENANT_BUDGET_TOKENS}`);
      continue;
    }
    if (budgets.has(tenant)) {
      problems.push(`TENANT_TOKEN_BUDGETS names tenant "${tenant}" twice`);
      continue;
    }
    budgets.set(tenant, Number(tokens));
  }
  return budgets;
}
