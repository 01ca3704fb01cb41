import { RunledgerClient } from '../../clients/typescript/src';

/**
 * The suites' way to reach the server when a test is not about HTTP itself: the TypeScript SDK
 * (clients/typescript), so every suite exercises it too. Tests of status codes, headers and
 * bodies use `api()` from app-harness.ts instead.
 */
export const sdk = (baseUrl: string, apiKey?: string): RunledgerClient => new RunledgerClient({ baseUrl, apiKey });
