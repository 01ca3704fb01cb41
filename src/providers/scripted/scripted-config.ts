import { schemaProblem } from '../../common/json-schema/schema-checker';
import { MAX_TIMEOUT_MS } from '../../executions/domain/execution-deadlines';

export type ScriptStep =
  | { type: 'text'; text: string }
  | { type: 'delay'; ms: number }
  | { type: 'action'; kind: 'approval' | 'input'; prompt: string; inputSchema?: object; timeoutMs?: number }
  | { type: 'artifact'; name: string; mediaType: string; uri?: string; metadata?: Record<string, unknown> }
  | { type: 'providerEvent'; name: string; payload?: Record<string, unknown> }
  | { type: 'fail'; message: string }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface ScriptedConfig {
  script?: ScriptStep[];
  cleanup?: 'ok' | 'fail';
  cleanupDelayMs?: number;
}

/** The most tokens one `usage` step may add in each direction (docs/api.md#the-scripted-provider). */
export const MAX_STEP_TOKENS = 1_000_000_000;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
const nonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0;

type Check = (v: unknown, step: Json) => string | null | Promise<string | null>;

/** Per step type: its allowed keys, and a check of each present key returning a problem or null. */
const STEP_RULES: Record<string, { required: string[]; checks: Record<string, Check> }> = {
  text: { required: ['text'], checks: { text: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string') } },
  delay: { required: ['ms'], checks: { ms: (v) => (isInt(v, 0, 60000) ? null : 'must be an integer from 0 to 60000') } },
  action: {
    required: ['kind', 'prompt'],
    checks: {
      kind: (v) => (v === 'approval' || v === 'input' ? null : 'must be "approval" or "input"'),
      prompt: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string'),
      inputSchema: async (v, step) => {
        if (step.kind !== 'input') return 'is only allowed for kind "input"';
        const problem = await schemaProblem(v);
        return problem ? `is not a valid JSON Schema 2020-12: ${problem}` : null;
      },
      timeoutMs: (v) => (isInt(v, 1, MAX_TIMEOUT_MS) ? null : `must be an integer from 1 to ${MAX_TIMEOUT_MS}`),
    },
  },
  artifact: {
    required: ['name', 'mediaType'],
    checks: {
      // Empty strings are a shape error (docs/api.md#conventions); whether a non-empty value is valid is decided when
      // the step runs (docs/api.md#the-scripted-provider), so a bad media type fails the execution rather than the request.
      name: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string'),
      mediaType: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string'),
      uri: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string'),
      metadata: (v) => (isObject(v) ? null : 'must be an object'),
    },
  },
  providerEvent: {
    required: ['name'],
    checks: {
      name: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string'),
      payload: (v) => (isObject(v) ? null : 'must be an object'),
    },
  },
  fail: { required: ['message'], checks: { message: (v) => (nonEmptyString(v) ? null : 'must be a non-empty string') } },
  usage: {
    required: ['inputTokens', 'outputTokens'],
    checks: {
      inputTokens: (v) => (isInt(v, 0, MAX_STEP_TOKENS) ? null : `must be an integer from 0 to ${MAX_STEP_TOKENS}`),
      outputTokens: (v) => (isInt(v, 0, MAX_STEP_TOKENS) ? null : `must be an integer from 0 to ${MAX_STEP_TOKENS}`),
    },
  },
};

/** Each step type's checks as [key, check] pairs, in the order their problems are reported. */
const STEP_CHECKS = new Map(Object.entries(STEP_RULES).map(([type, rules]) => [type, Object.entries(rules.checks)]));

/** A step's place in problems, made only when one is reported. */
const where = (index: number) => `config.script[${index}]`;

/**
 * A step's first problem, or null; a promise only for a check that needs one (an inputSchema), so
 * a script of thousands of plain steps is checked without a promise or a string per step.
 */
function stepProblem(step: unknown, index: number): string | null | Promise<string | null> {
  if (!isObject(step)) return `${where(index)} must be an object`;
  const rules = typeof step.type === 'string' ? STEP_RULES[step.type] : undefined;
  if (!rules) return `${where(index)}.type must be one of ${Object.keys(STEP_RULES).join(', ')}`;
  for (const key of Object.keys(step)) {
    if (key !== 'type' && !(key in rules.checks)) return `${where(index)}.${key} is not a known field of a ${String(step.type)} step`;
  }
  for (const key of rules.required) {
    if (step[key] === undefined || step[key] === null) return `${where(index)}.${key} is required`;
  }
  const checks = STEP_CHECKS.get(step.type as string)!;
  for (let i = 0; i < checks.length; i++) {
    const [key, check] = checks[i];
    // null means "left out" in requests (docs/api.md#conventions).
    if (step[key] === undefined || step[key] === null) continue;
    const problem = check(step[key], step);
    if (problem instanceof Promise) return laterChecks(problem, step, checks, i, index);
    if (problem) return `${where(index)}.${key} ${problem}`;
  }
  return null;
}

/** The rest of stepProblem once a check answered with a promise: the same checks, awaited in order. */
async function laterChecks(first: Promise<string | null>, step: Json, checks: [string, Check][], from: number, index: number): Promise<string | null> {
  for (let i = from; i < checks.length; i++) {
    const [key, check] = checks[i];
    if (i > from && (step[key] === undefined || step[key] === null)) continue;
    const problem = await (i === from ? first : check(step[key], step));
    if (problem) return `${where(index)}.${key} ${problem}`;
  }
  return null;
}

/** The shape check of docs/api.md#the-scripted-provider: known keys, known step types, required fields, JSON types, ranges. */
export async function scriptedConfigProblem(config: Json): Promise<string | null> {
  for (const key of Object.keys(config)) {
    if (!['script', 'cleanup', 'cleanupDelayMs'].includes(key)) return `config.${key} is not a known scripted option`;
  }
  const { script, cleanup, cleanupDelayMs } = config;
  if (script !== undefined && script !== null) {
    if (!Array.isArray(script)) return 'config.script must be an array of steps';
    for (let i = 0; i < script.length; i++) {
      const found = stepProblem(script[i], i);
      const problem = found instanceof Promise ? await found : found;
      if (problem) return problem;
    }
  }
  if (cleanup !== undefined && cleanup !== null && cleanup !== 'ok' && cleanup !== 'fail') {
    return 'config.cleanup must be "ok" or "fail"';
  }
  if (cleanupDelayMs !== undefined && cleanupDelayMs !== null && !isInt(cleanupDelayMs, 0, 10000)) {
    return 'config.cleanupDelayMs must be an integer from 0 to 10000';
  }
  return null;
}
