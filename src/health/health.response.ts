import { ApiProperty, ApiPropertyOptions, ApiSchema } from '@nestjs/swagger';

const CHECKS: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['up', 'down'] }, message: { type: 'string' } },
    required: ['status'],
    additionalProperties: true,
  },
  description: 'Check name → its result',
  example: { eventStore: { status: 'up', headPosition: 42 }, storeWrites: { status: 'up' } },
};

/** Terminus's result shape, as `/health/live` and a ready `/health/ready` answer it. */
@ApiSchema({ name: 'HealthResult' })
export class HealthResultResponse {
  @ApiProperty({ enum: ['ok'] })
  status!: string;

  @ApiProperty({ ...CHECKS, description: 'The checks that passed' })
  info!: object;

  @ApiProperty({ ...CHECKS, description: 'The checks that failed (empty when ready)' })
  error!: object;

  @ApiProperty({ ...CHECKS, description: 'Every check' })
  details!: object;
}
