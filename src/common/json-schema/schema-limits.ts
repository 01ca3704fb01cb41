/**
 * The bounds a client's JSON Schema must keep before it is compiled (docs/operations.md#limits-security-headers-and-cors).
 * Compiling costs time and memory in proportion to the schema, and some keywords cost time in
 * proportion to the square of the value; both are capped here so that no schema a tenant sends
 * can be made expensive on purpose.
 */
export const SCHEMA_LIMITS = {
  /** UTF-8 bytes of the schema's JSON. */
  maxBytes: 64 * 1024,
  /** Nesting of objects and arrays inside the schema. */
  maxDepth: 32,
  /** `uniqueItems` compares every pair of items; it needs a `maxItems` of at most this. */
  maxUniqueItems: 1000,
  /** How long one compile or one validation may run in the schema worker. */
  checkTimeoutMs: 1000,
  /** Checks waiting for the worker; one more is 429 RATE_LIMITED. */
  maxQueuedChecks: 256,
  /** Memory the compiled-schema cache may hold (estimated), least recently used out first. */
  cacheBytes: 32 * 1024 * 1024,
} as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Null when the schema keeps every bound, else the first bound it breaks. Iterative, linear. */
export function schemaLimitProblem(schema: unknown, bytes: number): string | null {
  if (bytes > SCHEMA_LIMITS.maxBytes) return `is ${bytes} bytes long; a schema may have at most ${SCHEMA_LIMITS.maxBytes}`;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: schema, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > SCHEMA_LIMITS.maxDepth) return `is nested deeper than ${SCHEMA_LIMITS.maxDepth} levels`;
    if (isObject(node) && node.uniqueItems === true) {
      const max = node.maxItems;
      if (typeof max !== 'number' || max > SCHEMA_LIMITS.maxUniqueItems) {
        return `uses uniqueItems without a maxItems of at most ${SCHEMA_LIMITS.maxUniqueItems}`;
      }
    }
    for (const child of Object.values(node)) stack.push({ node: child, depth: depth + 1 });
  }
  return null;
}
