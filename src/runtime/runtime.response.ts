import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { EventStore } from '../event-store/event-store';
import type { ProjectionStatus } from '../read-models/projection-status';
import type { CapabilityLevel, ProviderManifest } from '../providers/provider';

const LEVELS: CapabilityLevel[] = ['native', 'emulated', 'degraded', 'unsupported'];

/** docs/api.md#runtime-and-providers */
@ApiSchema({ name: 'ProviderManifest' })
export class ProviderManifestResponse implements ProviderManifest {
  @ApiProperty({ example: 'scripted' })
  id!: string;

  @ApiProperty({ example: 'Scripted (deterministic)' })
  displayName!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', enum: LEVELS },
    description: 'Capability name → level. A capability not listed is absent.',
    example: { 'output.text.stream': 'native', cancellation: 'native', 'input.image': 'unsupported' },
  })
  capabilities!: Record<string, CapabilityLevel>;
}

@ApiSchema({ name: 'ProviderList' })
export class ProviderListResponse {
  @ApiProperty({ type: () => [ProviderManifestResponse] })
  providers!: ProviderManifestResponse[];
}

@ApiSchema({ name: 'ProjectionStatus' })
export class ProjectionStatusResponse implements ProjectionStatus {
  @ApiProperty({ example: 'executions' })
  name!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'The last global position it applied' })
  position!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Events still to apply (0 when caught up), counted up to a cap' })
  lag!: number;
}

@ApiSchema({ name: 'RuntimeInfo' })
export class RuntimeInfoResponse {
  @ApiProperty({ example: '2026-09-02' })
  protocolVersion!: string;

  @ApiProperty({ example: 'runledger' })
  name!: string;

  @ApiProperty({ example: '0.1.0' })
  version!: string;

  @ApiProperty({ enum: ['sqlite', 'eventstoredb', 'postgres'] })
  eventStore!: EventStore['kind'];

  @ApiProperty({ type: () => [ProviderManifestResponse] })
  providers!: ProviderManifestResponse[];

  @ApiProperty({ type: () => [ProjectionStatusResponse], description: "Each read model's progress through the log" })
  projections!: ProjectionStatusResponse[];
}
