import { ErrorInfo, Usage } from '../domain/execution-events';
import { ExecutionState } from '../domain/execution-state';
import { addUsage, budgetExceeded } from '../domain/execution-usage';

/** A count a provider reported, as a non-negative integer: an upstream's odd figure never makes the sum negative. */
const tokens = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * What one running execution has spent so far, summed from its provider's reports; the domain
 * says when that passes the execution's budget (docs/api.md#usage-and-budgets).
 */
export class UsageMeter {
  private spent: Usage | null = null;

  constructor(private readonly state: Pick<ExecutionState, 'budget'>) {}

  get usage(): Usage | null {
    return this.spent;
  }

  /** Adds a report; answers the run's failure when the sum has passed the budget. */
  add(report: Usage): ErrorInfo | null {
    this.spent = addUsage(this.spent, { inputTokens: tokens(report.inputTokens), outputTokens: tokens(report.outputTokens) });
    return budgetExceeded(this.state, this.spent);
  }

  /** The usage a completed run records: the provider's own total when it gave one, else the reports' sum. */
  final(outcome: Usage | null): Usage | null {
    return outcome ? { inputTokens: tokens(outcome.inputTokens), outputTokens: tokens(outcome.outputTokens) } : this.spent;
  }

  exceeded(usage: Usage | null): ErrorInfo | null {
    return budgetExceeded(this.state, usage);
  }
}
