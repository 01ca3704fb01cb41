import { Secret } from './secret';

export const PROVIDER_KINDS = ['openai-compatible', 'anthropic', 'scripted'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];
export type LlmKind = Exclude<ProviderKind, 'scripted'>;

/** A `scripted` instance under another id (the built-in `scripted` is always there too). */
export interface ScriptedSettings {
  id: string;
  kind: 'scripted';
  displayName: string;
}

/** One validated instance of an LLM provider kind from PROVIDERS_CONFIG, defaults filled in. */
export interface LlmSettings {
  id: string;
  kind: LlmKind;
  displayName: string;
  baseURL: string;
  /** The name of the variable the key came from (for messages); the key itself only in `apiKey`. */
  apiKeyEnv: string | null;
  apiKey: Secret | null;
  model: string;
  defaults: { temperature: number | null; maxTokens: number | null; system: string | null };
  timeouts: { requestMs: number; idleMs: number };
  retries: RetrySettings;
  supports: {
    tools: boolean;
    /** openai-compatible only: the endpoint accepts `stream_options: {include_usage: true}`. */
    streamUsage: boolean;
    /** openai-compatible only: send `max_completion_tokens` instead of `max_tokens`. */
    maxCompletionTokens: boolean;
  };
}

export interface RetrySettings {
  /** Retries of one upstream request answered 429/5xx before its first delta. */
  max: number;
  initialDelayMs: number;
  /** Upper bound of one wait; a Retry-After beyond it ends the run instead of waiting. */
  maxDelayMs: number;
}

export type ProviderSettings = ScriptedSettings | LlmSettings;
