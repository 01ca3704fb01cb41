import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/api-error';
import { Provider, ProviderManifest } from './provider';
import { ScriptedProvider } from './scripted/scripted.provider';

@Injectable()
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();

  constructor() {
    this.register(new ScriptedProvider());
  }

  register(provider: Provider): void {
    this.providers.set(provider.manifest.id, provider);
  }

  manifests(): ProviderManifest[] {
    return [...this.providers.values()].map((p) => p.manifest);
  }

  get(id: string): Provider {
    const provider = this.providers.get(id);
    if (!provider) throw new ApiError('PROVIDER_NOT_FOUND', `provider ${id} not found`);
    return provider;
  }

}
