import Anthropic from '@anthropic-ai/sdk';
import { LlmSettings } from '../config/provider-settings';

/**
 * The official SDK client for one instance. The key is passed explicitly, so the SDK reads no
 * credential of its own (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, profiles): the providers file
 * is the one place an instance is configured.
 */
export function anthropicClient(settings: LlmSettings): Anthropic {
  return new Anthropic({
    // The host without /v1: the SDK adds /v1/messages.
    baseURL: settings.baseURL,
    // Without a key (a gateway that adds its own) a placeholder satisfies the SDK and the
    // headers below drop it, so no credential header is sent at all.
    apiKey: settings.apiKey?.reveal() ?? 'none',
    // Retries are ours (withRetries): only before the first delta, honouring Retry-After, testable.
    maxRetries: 0,
    timeout: settings.timeouts.requestMs,
    // Its debug log prints requests; our errors say what matters without a credential.
    logLevel: 'off',
    defaultHeaders: settings.apiKey ? undefined : { 'x-api-key': null, authorization: null },
  });
}
