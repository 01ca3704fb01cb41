import { Command } from '@nestjs/cqrs';
import { ExecutionState } from '../domain/execution-state';

export interface StartExecutionResult {
  state: ExecutionState;
  /** True when an idempotency key returned an existing execution. */
  replayed: boolean;
}

export class StartExecutionCommand extends Command<StartExecutionResult> {
  constructor(
    readonly tenantId: string,
    readonly request: {
      conversationId: string;
      provider: string;
      input: { text: string };
      requiredCapabilities: string[];
      config: Record<string, unknown>;
      idempotencyKey: string | null;
    },
  ) {
    super();
  }
}
