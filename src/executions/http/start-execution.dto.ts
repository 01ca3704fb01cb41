import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsNotEmpty, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import { CodePointLength } from '../../common/validation';

export class ExecutionInputDto {
  @IsDefined({ message: 'text is required' })
  @IsString({ message: 'text must be a string' })
  @IsNotEmpty({ message: 'text must not be empty' })
  text!: string;
}

export class StartExecutionDto {
  @IsDefined({ message: 'conversationId is required' })
  @IsString({ message: 'conversationId must be a string' })
  @IsNotEmpty({ message: 'conversationId must not be empty' })
  conversationId!: string;

  @IsDefined({ message: 'provider is required' })
  @IsString({ message: 'provider must be a string' })
  @IsNotEmpty({ message: 'provider must not be empty' })
  provider!: string;

  @IsDefined({ message: 'input is required' })
  @IsObject({ message: 'input must be an object' })
  @ValidateNested()
  @Type(() => ExecutionInputDto)
  input!: ExecutionInputDto;

  @IsOptional()
  @IsArray({ message: 'requiredCapabilities must be an array of strings' })
  @IsString({ each: true, message: 'requiredCapabilities must be an array of strings' })
  @IsNotEmpty({ each: true, message: 'requiredCapabilities must not contain empty strings' })
  requiredCapabilities?: string[] | null;

  @IsOptional()
  @IsObject({ message: 'config must be an object' })
  config?: Record<string, unknown> | null;

  @IsOptional()
  @IsString({ message: 'idempotencyKey must be a string' })
  @CodePointLength(1, 255)
  @Matches(/^[\x20-\x7e]+$/, { message: 'idempotencyKey must be 1 to 255 printable ASCII characters' })
  idempotencyKey?: string | null;
}
