import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { CodePointLength, FreeFormObject } from '../../common/validation';
import { ConcurrencyField } from './concurrency.field';

export class CreateConversationDto {
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 200, description: 'Length in Unicode code points' })
  @IsOptional()
  @IsString({ message: 'title must be a string' })
  @CodePointLength(1, 200)
  title?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, description: 'Any JSON object; default {}' })
  @IsOptional()
  @FreeFormObject({ message: 'metadata must be an object' })
  metadata?: Record<string, unknown> | null;

  @ConcurrencyField('The default `concurrency` of its executions (an execution may override it). Default parallel')
  concurrency?: ConcurrencyPolicy | null;
}
