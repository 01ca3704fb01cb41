import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ISO_TIME, JSON_OBJECT, nullable } from '../../openapi/schema-types';
import { ErrorInfo, ExecutionInput } from '../domain/execution-events';
import { ExecutionStatus } from '../domain/execution-state';
import { MAX_TIMEOUT_MS } from '../domain/execution-deadlines';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { CONCURRENCY_SHOWN } from '../../conversations/http/concurrency.field';
import { RUN_FAILURE_CODES } from '../domain/end-codes';

/** `timeoutMs` and `actionTimeoutMs` as docs/api.md#deadlines bounds them. */
export const TIMEOUT_MS = (description: string) => ({ type: 'integer' as const, minimum: 1, maximum: MAX_TIMEOUT_MS, description });

export const EXECUTION_STATUSES: ExecutionStatus[] = ['queued', 'running', 'requires_action', 'completed', 'failed', 'cancelled'];

@ApiSchema({ name: 'ExecutionInput' })
export class ExecutionInputResponse implements ExecutionInput {
  @ApiProperty({ minLength: 1, example: 'hello brave new world' })
  text!: string;
}

@ApiSchema({ name: 'ExecutionError' })
export class ExecutionErrorResponse implements ErrorInfo {
  @ApiProperty({ example: 'PROVIDER_ERROR', description: `One of ${RUN_FAILURE_CODES.join(', ')}` })
  code!: string;

  @ApiProperty()
  message!: string;
}

@ApiSchema({ name: 'Cancellation' })
export class CancellationResponse {
  @ApiProperty({ type: String, nullable: true })
  reason!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The provider cleanup's error message, if it failed" })
  providerCleanupError!: string | null;
}

/** docs/api.md#usage-and-budgets: the execution's token budget. */
@ApiSchema({ name: 'ExecutionBudget' })
export class BudgetResponse {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The run fails `BUDGET_EXCEEDED` once its reported input plus output tokens pass this' })
  maxTotalTokens!: number;
}

/** docs/api.md#executions; `executionView` writes it, in this key order. */
@ApiSchema({ name: 'Execution' })
@ApiExtraModels(ExecutionErrorResponse, CancellationResponse)
export class ExecutionResponse {
  @ApiProperty({ description: 'UUIDv7' })
  id!: string;

  @ApiProperty()
  conversationId!: string;

  @ApiProperty({ example: 'scripted' })
  provider!: string;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: ExecutionStatus;

  @ApiProperty({ type: () => ExecutionInputResponse })
  input!: ExecutionInputResponse;

  @ApiProperty({ type: [String], example: ['output.text.stream'] })
  requiredCapabilities!: string[];

  @ApiProperty({ ...JSON_OBJECT, description: 'Provider-specific; `{}` when none was given' })
  config!: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true })
  idempotencyKey!: string | null;

  @ApiPropertyOptional(TIMEOUT_MS('The run fails `DEADLINE_EXCEEDED` this long after `run.queued`; absent when it has no deadline'))
  timeoutMs?: number;

  @ApiPropertyOptional(TIMEOUT_MS('How long each action may stay unanswered unless it says otherwise; absent when not set'))
  actionTimeoutMs?: number;

  @ApiPropertyOptional(CONCURRENCY_SHOWN("Its concurrency policy, its own or its conversation's; absent when neither set one (parallel)"))
  concurrency?: ConcurrencyPolicy;
  @ApiPropertyOptional({ type: () => BudgetResponse, description: 'Absent when the execution has no budget' })
  budget?: BudgetResponse;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ ...ISO_TIME, nullable: true })
  startedAt!: string | null;

  @ApiProperty({ ...ISO_TIME, nullable: true })
  endedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The `output.text.done` text once emitted' })
  outputText!: string | null;

  @ApiProperty(nullable(ExecutionErrorResponse, 'Set by `run.failed`'))
  error!: ExecutionErrorResponse | null;

  @ApiProperty(nullable(CancellationResponse, 'Set by `run.cancelled`'))
  cancellation!: CancellationResponse | null;

  @ApiProperty({ type: [String] })
  pendingActionIds!: string[];

  @ApiProperty({ type: 'integer', minimum: 0 })
  artifactCount!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Sequence of the last event; 1 right after `run.queued`' })
  lastSequence!: number;
}

/** docs/api.md#executions: a search page, newest first. */
@ApiSchema({ name: 'ExecutionSearchPage' })
export class ExecutionSearchPageResponse {
  @ApiProperty({ type: () => [ExecutionResponse], description: 'Newest first' })
  executions!: ExecutionResponse[];

  @ApiProperty({ type: String, nullable: true, description: 'Opaque; pass as `cursor` for the next page. null on the last page' })
  nextCursor!: string | null;
}
