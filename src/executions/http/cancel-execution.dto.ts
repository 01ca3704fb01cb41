import { IsOptional, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation';

export class CancelExecutionDto {
  @IsOptional()
  @IsString({ message: 'reason must be a string' })
  @CodePointLength(1, 500, { message: 'reason must be from 1 to 500 characters' })
  reason?: string | null;
}
