import { ProviderManifest } from '../provider';
import { LlmSettings } from '../config/provider-settings';

/**
 * The manifest of an openai-compatible or anthropic instance, level by level
 * (docs/providers.md#what-the-manifests-say-and-why explains each): what this runtime does with
 * the API through the SDK, not what the vendor's API can do elsewhere. Both kinds map the same
 * way, so one derivation serves both; only the settings move it.
 */
export function llmManifest(settings: LlmSettings): ProviderManifest {
  const tools = settings.supports.tools;
  return {
    id: settings.id,
    displayName: settings.displayName,
    capabilities: {
      // Streaming chat completions / Messages streaming: each upstream chunk is one delta.
      'output.text.stream': 'native',
      // The API calls tools natively; each call becomes an input action answered by the caller.
      tools: tools ? 'native' : 'unsupported',
      // The model never asks a human for input on its own: an input action exists only as a tool
      // call mapped onto one, so it needs tools and the caller's tool definitions.
      'actions.input': tools ? 'emulated' : 'unsupported',
      // Nothing in either API asks for an approve/deny decision.
      'actions.approval': 'unsupported',
      // Earlier turns are sent as prior messages on every request: the API's own conversation shape.
      'conversation.history': 'native',
      // Cancelling aborts the upstream HTTP request, which stops generation and billing upstream.
      cancellation: 'native',
      // Chat text only: neither API produces files through these endpoints.
      artifacts: 'unsupported',
      // No config option asks for a response schema yet (config takes model, temperature,
      // maxTokens, system, tools only), so structured output is not offered.
      'output.structured': 'unsupported',
      // The binding's input is text only.
      'input.image': 'unsupported',
    },
  };
}
