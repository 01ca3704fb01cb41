import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, ValidateBy } from 'class-validator';
import { CodePointLength } from '../../common/validation';
import { ANY_JSON } from '../../openapi/schema-types';

/**
 * The two bodies of docs/api.md#actions. Which one applies depends on the action's kind, so they are
 * checked after the lookups and state checks (action-response.ts), never by the global pipe.
 */
export class ApprovalAnswerDto {
  @ApiProperty({ enum: ['approve', 'deny'] })
  @IsIn(['approve', 'deny'], { message: 'decision must be "approve" or "deny"' })
  decision!: 'approve' | 'deny';

  @ApiPropertyOptional({ type: String, minLength: 1, maxLength: 2000, nullable: true, description: 'Length in Unicode code points' })
  @IsOptional()
  @IsString({ message: 'comment must be a string of 1 to 2000 characters' })
  @CodePointLength(1, 2000, { message: 'comment must be a string of 1 to 2000 characters' })
  comment?: string | null;
}

export class InputAnswerDto {
  // null is an answer; only a missing value is not (JSON has no undefined).
  @ApiProperty({ oneOf: ANY_JSON, description: "Any JSON, validated against the action's inputSchema when it has one" })
  @ValidateBy({ name: 'isPresent', validator: { validate: (value: unknown) => value !== undefined, defaultMessage: () => 'value is required' } })
  value!: unknown;
}

export type RespondToActionDto = ApprovalAnswerDto | InputAnswerDto;
