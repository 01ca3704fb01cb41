import { IsObject, IsOptional, IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation';

export class CreateConversationDto {
  @IsOptional()
  @IsString({ message: 'title must be a string' })
  @CodePointLength(1, 200)
  title?: string | null;

  @IsOptional()
  @IsObject({ message: 'metadata must be an object' })
  metadata?: Record<string, unknown> | null;
}
