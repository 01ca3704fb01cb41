import OpenAI from 'openai';
import { LlmSettings } from '../config/provider-settings';

/**
 * The official SDK client for one instance. Everything is set explicitly so that the SDK reads
 * nothing of its own from the environment (OPENAI_BASE_URL, OPENAI_ORG_ID, …): the providers
 * file is the one place an instance is configured.
 */
export function openAIClient(settings: LlmSettings): OpenAI {
  return new OpenAI({
    baseURL: settings.baseURL,
    // The SDK insists on some key; without one (a local Ollama, vLLM) the header is dropped below.
    apiKey: settings.apiKey?.reveal() ?? 'none',
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    // Retries are ours (withRetries): only before the first delta, honouring Retry-After, testable.
    maxRetries: 0,
    timeout: settings.timeouts.requestMs,
    // Its debug log prints requests; our errors say what matters without a credential.
    logLevel: 'off',
    defaultHeaders: settings.apiKey ? undefined : { Authorization: null },
  });
}
