import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { RouteDocs } from '../openapi/route-docs';
import { ProviderListResponse, ProviderManifestResponse, RuntimeInfoResponse } from './runtime.response';

/** docs/api.md#runtime-and-providers */
export const RuntimeDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'runtime', summary: 'What this runtime is: protocol version, event store and providers' }),
    ApiOkResponse({ type: RuntimeInfoResponse }),
  );

export const ProviderListDocs = () =>
  applyDecorators(RouteDocs({ tag: 'runtime', summary: "Every provider's manifest" }), ApiOkResponse({ type: ProviderListResponse }));

export const ProviderDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'runtime', summary: "One provider's manifest", errors: ['PROVIDER_NOT_FOUND'] }),
    ApiParam({ name: 'providerId', example: 'scripted' }),
    ApiOkResponse({ type: ProviderManifestResponse }),
  );
