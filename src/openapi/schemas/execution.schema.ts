import { ApiProperty } from '@nestjs/swagger';
import { ISO_TIME, JSON_OBJECT } from './json';

export const EXECUTION_STATUSES = ['queued', 'running', 'requires_action', 'completed', 'failed', 'cancelled'];

export class ExecutionInput {
  @ApiProperty({ minLength: 1, example: 'hello brave new world' })
  text!: string;
}

export class ExecutionError {
  @ApiProperty({ example: 'PROVIDER_ERROR', description: 'e.g. PROVIDER_ERROR, ACTION_DENIED, RUNTIME_INTERRUPTED' })
  code!: string;

  @ApiProperty()
  message!: string;
}

export class Cancellation {
  @ApiProperty({ type: String, nullable: true })
  reason!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The provider cleanup's error message, if it failed" })
  providerCleanupError!: string | null;
}

export class Execution {
  @ApiProperty({ description: 'UUIDv7' })
  id!: string;

  @ApiProperty()
  conversationId!: string;

  @ApiProperty({ example: 'scripted' })
  provider!: string;

  @ApiProperty({ enum: EXECUTION_STATUSES })
  status!: string;

  @ApiProperty({ type: () => ExecutionInput })
  input!: ExecutionInput;

  @ApiProperty({ type: [String], example: ['output.text.stream'] })
  requiredCapabilities!: string[];

  @ApiProperty({ ...JSON_OBJECT, description: 'Provider-specific; `{}` when none was given' })
  config!: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true })
  idempotencyKey!: string | null;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ ...ISO_TIME, nullable: true })
  startedAt!: string | null;

  @ApiProperty({ ...ISO_TIME, nullable: true })
  endedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The `output.text.done` text once emitted' })
  outputText!: string | null;

  @ApiProperty({ type: () => ExecutionError, nullable: true, description: 'Set by `run.failed`' })
  error!: ExecutionError | null;

  @ApiProperty({ type: () => Cancellation, nullable: true, description: 'Set by `run.cancelled`' })
  cancellation!: Cancellation | null;

  @ApiProperty({ type: [String] })
  pendingActionIds!: string[];

  @ApiProperty({ type: 'integer', minimum: 0 })
  artifactCount!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Sequence of the last event; 1 right after `run.queued`' })
  lastSequence!: number;
}
