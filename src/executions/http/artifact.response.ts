import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ISO_TIME, JSON_OBJECT } from '../../openapi/schema-types';
import { ArtifactDescriptor } from '../domain/execution-events';

/** docs/api.md#artifacts: a descriptor only; no artifact bytes are stored or proxied. */
@ApiSchema({ name: 'Artifact' })
export class ArtifactResponse implements ArtifactDescriptor {
  @ApiProperty()
  id!: string;

  @ApiProperty()
  executionId!: string;

  @ApiProperty({ minLength: 1, maxLength: 255, example: 'report.pdf' })
  name!: string;

  @ApiProperty({ example: 'application/pdf', description: 'RFC 6838 type/subtype, parameters allowed, no wildcards' })
  mediaType!: string;

  @ApiProperty(ISO_TIME)
  createdAt!: string;

  @ApiProperty({ type: String, format: 'uri', nullable: true, example: 'https://files.example/report.pdf' })
  uri!: string | null;

  @ApiProperty(JSON_OBJECT)
  metadata!: Record<string, unknown>;
}

@ApiSchema({ name: 'ArtifactList' })
export class ArtifactListResponse {
  @ApiProperty({ type: () => [ArtifactResponse], description: 'In creation order' })
  artifacts!: ArtifactResponse[];
}
