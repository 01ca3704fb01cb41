import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_CODES } from '../common/errors/app-error';
import { JSON_OBJECT } from './schema-types';

export class ApiErrorBody {
  @ApiProperty({ enum: [...ERROR_CODES, 'INTERNAL_ERROR'], example: 'VALIDATION_ERROR' })
  code!: string;

  @ApiProperty({ example: 'reason must be from 1 to 500 characters', description: 'For people; never a stack trace' })
  message!: string;

  @ApiPropertyOptional({ ...JSON_OBJECT, description: 'Machine-readable specifics, e.g. `capabilities` on CAPABILITY_UNSUPPORTED' })
  details?: Record<string, unknown>;
}

/** docs/api.md#errors: every error answer, and nothing else at the top level. */
export class ErrorEnvelope {
  @ApiProperty({ type: () => ApiErrorBody })
  error!: ApiErrorBody;
}
