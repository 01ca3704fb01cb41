import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { RouteDocs } from '../route-docs';
import { ProviderList, ProviderManifest, RuntimeInfo } from '../schemas/provider.schema';

/** docs/api.md#runtime-and-providers */
export const RuntimeDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'runtime', summary: 'What this runtime is: protocol version, event store and providers' }),
    ApiOkResponse({ type: RuntimeInfo }),
  );

export const ProviderListDocs = () =>
  applyDecorators(RouteDocs({ tag: 'runtime', summary: "Every provider's manifest" }), ApiOkResponse({ type: ProviderList }));

export const ProviderDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'runtime', summary: "One provider's manifest", errors: ['PROVIDER_NOT_FOUND'] }),
    ApiParam({ name: 'providerId', example: 'scripted' }),
    ApiOkResponse({ type: ProviderManifest }),
  );
