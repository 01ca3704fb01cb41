import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

export class ReplayWebhookDto {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'A global log position (as the audit feed and the delivery log show): every matching event after it is sent again',
  })
  @IsInt({ message: 'after must be an integer' })
  @Min(0, { message: 'after must be at least 0' })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'after is too large' })
  after!: number;
}
