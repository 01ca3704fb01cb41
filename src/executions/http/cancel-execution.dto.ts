import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation';

export class CancelExecutionDto {
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 500, description: 'Length in Unicode code points' })
  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @CodePointLength(1, 500, { message: 'reason must be from 1 to 500 characters' })
  reason?: string | null;
}
