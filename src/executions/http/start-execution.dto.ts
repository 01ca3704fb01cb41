import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { CodePointLength, FreeFormObject } from '../../common/validation';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { ConcurrencyField } from '../../conversations/http/concurrency.field';
import { MAX_TIMEOUT_MS } from '../domain/execution-deadlines';
import { MAX_BUDGET_TOKENS } from '../domain/execution-usage';

export class ExecutionInputDto {
  @ApiProperty({ minLength: 1, example: 'hello brave new world' })
  @IsDefined({ message: 'text is required' })
  @IsString({ message: 'text must be a string' })
  @IsNotEmpty({ message: 'text must not be empty' })
  text!: string;
}

/** docs/api.md#usage-and-budgets: the run fails BUDGET_EXCEEDED once its reported tokens pass this. */
export class ExecutionBudgetDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_BUDGET_TOKENS, description: 'Input plus output tokens the run may spend' })
  @IsDefined({ message: 'budget.maxTotalTokens is required' })
  @IsInt({ message: `budget.maxTotalTokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}` })
  @Min(1, { message: `budget.maxTotalTokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}` })
  @Max(MAX_BUDGET_TOKENS, { message: `budget.maxTotalTokens must be an integer from 1 to ${MAX_BUDGET_TOKENS}` })
  maxTotalTokens!: number;
}

export class StartExecutionDto {
  @ApiProperty({ minLength: 1, description: 'An existing conversation' })
  @IsDefined({ message: 'conversationId is required' })
  @IsString({ message: 'conversationId must be a string' })
  @IsNotEmpty({ message: 'conversationId must not be empty' })
  conversationId!: string;

  @ApiProperty({ minLength: 1, example: 'scripted', description: 'A provider id from GET /v1/providers' })
  @IsDefined({ message: 'provider is required' })
  @IsString({ message: 'provider must be a string' })
  @IsNotEmpty({ message: 'provider must not be empty' })
  provider!: string;

  @ApiProperty({ type: () => ExecutionInputDto, description: 'No other fields than `text` yet' })
  @IsDefined({ message: 'input is required' })
  @IsObject({ message: 'input must be an object' })
  @ValidateNested()
  @Type(() => ExecutionInputDto)
  input!: ExecutionInputDto;

  @ApiPropertyOptional({
    type: [String],
    nullable: true,
    example: ['output.text.stream'],
    description: 'Capabilities the provider must support (native, emulated or degraded); duplicates are dropped. Default []',
  })
  @IsOptional()
  @IsArray({ message: 'requiredCapabilities must be an array of strings' })
  @IsString({ each: true, message: 'requiredCapabilities must be an array of strings' })
  @IsNotEmpty({ each: true, message: 'requiredCapabilities must not contain empty strings' })
  requiredCapabilities?: string[] | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Provider-specific, checked by the provider (for `scripted`: script, cleanup, cleanupDelayMs). Default {}',
  })
  @IsOptional()
  @FreeFormObject({ message: 'config must be an object' })
  config?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x20-\\x7e]+$',
    description: 'Printable ASCII; a retry with the same key and an equivalent request returns the original execution',
  })
  @IsOptional()
  @IsString({ message: 'idempotencyKey must be a string' })
  @CodePointLength(1, 255)
  @Matches(/^[\x20-\x7e]+$/, { message: 'idempotencyKey must be 1 to 255 printable ASCII characters' })
  idempotencyKey?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_TIMEOUT_MS,
    description:
      'Milliseconds from `run.queued` (waiting on actions included) after which the run is stopped and fails `DEADLINE_EXCEEDED`. Default EXECUTION_TIMEOUT_MS (unset: none)',
  })
  @IsOptional()
  @IsInt({ message: `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  @Min(1, { message: `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  @Max(MAX_TIMEOUT_MS, { message: `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  timeoutMs?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_TIMEOUT_MS,
    description: "Milliseconds each action may stay unanswered before the run fails `ACTION_EXPIRED`; an action's own timeout wins. Default none",
  })
  @IsOptional()
  @IsInt({ message: `actionTimeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  @Min(1, { message: `actionTimeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  @Max(MAX_TIMEOUT_MS, { message: `actionTimeoutMs must be an integer from 1 to ${MAX_TIMEOUT_MS}` })
  actionTimeoutMs?: number | null;

  @ConcurrencyField("How it treats the conversation's executions that have not ended (docs/api.md#concurrency). Default the conversation's, else parallel")
  concurrency?: ConcurrencyPolicy | null;
  @ApiPropertyOptional({
    type: () => ExecutionBudgetDto,
    nullable: true,
    description: 'A token budget: once the usage the provider reported passes it, the run is stopped and fails `BUDGET_EXCEEDED`. Default none',
  })
  @IsOptional()
  @IsObject({ message: 'budget must be an object' })
  @ValidateNested()
  @Type(() => ExecutionBudgetDto)
  budget?: ExecutionBudgetDto | null;
}
