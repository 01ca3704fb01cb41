import { AnthropicProvider } from './anthropic/anthropic.provider';
import { ProviderSettings } from './config/provider-settings';
import { OpenAICompatibleProvider } from './openai-compatible/openai-compatible.provider';
import { Provider } from './provider';
import { ScriptedProvider } from './scripted/scripted.provider';

/** One provider instance from its validated settings: the kind picks the implementation. */
export function createProvider(settings: ProviderSettings): Provider {
  switch (settings.kind) {
    case 'scripted':
      return new ScriptedProvider({ id: settings.id, displayName: settings.displayName });
    case 'openai-compatible':
      return new OpenAICompatibleProvider(settings);
    case 'anthropic':
      return new AnthropicProvider(settings);
  }
}
