import { Controller, Get, Inject, Param } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { ProviderDocs, ProviderListDocs, RuntimeDocs } from './runtime.docs';
import { projectionStatus } from '../read-models/projection-status';
import { Projector } from '../read-models/projector';
import { ProviderRegistry } from '../providers/provider-registry';
import { PROTOCOL_VERSION, RUNTIME_NAME, RUNTIME_VERSION } from '../common/runtime-info';
import { ProviderListResponse, ProviderManifestResponse, RuntimeInfoResponse } from './runtime.response';

/** What this runtime is and which providers it offers (docs/api.md#runtime-and-providers). */
@Controller('v1')
export class RuntimeController {
  constructor(
    private readonly providers: ProviderRegistry,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projector: Projector,
  ) {}

  @Get('runtime')
  @RuntimeDocs()
  async runtime(): Promise<RuntimeInfoResponse> {
    return {
      protocolVersion: PROTOCOL_VERSION,
      name: RUNTIME_NAME,
      version: RUNTIME_VERSION,
      eventStore: this.store.kind,
      providers: this.providers.manifests(),
      projections: await projectionStatus(this.projector, this.store),
    };
  }

  @Get('providers')
  @ProviderListDocs()
  list(): ProviderListResponse {
    return { providers: this.providers.manifests() };
  }

  @Get('providers/:providerId')
  @ProviderDocs()
  get(@Param('providerId') providerId: string): ProviderManifestResponse {
    return this.providers.get(providerId).manifest;
  }
}
