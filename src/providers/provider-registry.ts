import { Inject, Injectable, Optional } from '@nestjs/common';
import { ProviderNotFoundError } from '../common/errors/request-errors';
import { CONFIG, Config } from '../config/config';
import { createProvider } from './create-provider';
import { Provider, ProviderManifest } from './provider';
import { ScriptedProvider } from './scripted/scripted.provider';

@Injectable()
export class ProviderRegistry {
  private readonly providers = new Map<string, Provider>();

  /**
   * The built-in `scripted` (unless SCRIPTED_PROVIDER=disabled: its script lets a caller choose
   * how much output a run makes), then PROVIDERS_CONFIG's instances in the file's order.
   */
  constructor(@Optional() @Inject(CONFIG) config?: Partial<Pick<Config, 'providers' | 'scriptedProvider'>>) {
    if (config?.scriptedProvider !== 'disabled') this.register(new ScriptedProvider());
    for (const settings of config?.providers ?? []) this.register(createProvider(settings));
  }

  register(provider: Provider): void {
    this.providers.set(provider.manifest.id, provider);
  }

  manifests(): ProviderManifest[] {
    return [...this.providers.values()].map((p) => p.manifest);
  }

  get(id: string): Provider {
    const provider = this.providers.get(id);
    if (!provider) throw new ProviderNotFoundError(id);
    return provider;
  }
}
