import { ErrorInfo, Usage } from './execution-events';
import { ExecutionState } from './execution-state';

export type { Usage };

/** The largest `budget.maxTotalTokens` a request may set (docs/api.md#usage-and-budgets). */
export const MAX_BUDGET_TOKENS = 1_000_000_000_000;

/** The sum of two reports; null only when neither reported anything. */
export const addUsage = (a: Usage | null, b: Usage | null): Usage | null =>
  a && b ? { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens } : (a ?? b);

export const totalTokens = (usage: Usage | null): number => (usage ? usage.inputTokens + usage.outputTokens : 0);

/** The usage reports of a run folded into what it has spent so far (null: none reported). */
export const usageOf = (reports: readonly (Usage | null)[]): Usage | null => reports.reduce<Usage | null>(addUsage, null);

/**
 * The run's failure once the usage reported so far passes its `budget.maxTotalTokens`, else null.
 * "Passes" is strictly more: a run that spends exactly its budget completes (docs/api.md#usage-and-budgets).
 */
export function budgetExceeded(state: Pick<ExecutionState, 'budget'>, spent: Usage | null): ErrorInfo | null {
  const max = state.budget?.maxTotalTokens;
  if (max === undefined || totalTokens(spent) <= max) return null;
  return { code: 'BUDGET_EXCEEDED', message: `the execution spent ${totalTokens(spent)} tokens, over its budget.maxTotalTokens of ${max}` };
}
