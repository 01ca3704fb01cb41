import { ApiProperty } from '@nestjs/swagger';

const LEVELS = ['native', 'emulated', 'degraded', 'unsupported'];

export class ProviderManifest {
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
  capabilities!: Record<string, string>;
}

export class ProviderList {
  @ApiProperty({ type: () => [ProviderManifest] })
  providers!: ProviderManifest[];
}

export class RuntimeInfo {
  @ApiProperty({ example: '2026-09-02' })
  protocolVersion!: string;

  @ApiProperty({ example: 'runledger' })
  name!: string;

  @ApiProperty({ example: '0.1.0' })
  version!: string;

  @ApiProperty({ enum: ['sqlite', 'eventstoredb', 'postgres'] })
  eventStore!: string;

  @ApiProperty({ type: () => [ProviderManifest] })
  providers!: ProviderManifest[];
}
