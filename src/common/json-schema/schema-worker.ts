import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { LRUCache } from 'lru-cache';
import { RE2 } from 're2-wasm';
import { parentPort } from 'node:worker_threads';
import { canonicalJson } from '../canonical-json';
import { SCHEMA_LIMITS, schemaLimitProblem } from './schema-limits';
import type { SchemaRequest, SchemaResponse } from './schema-messages';

// RE2 matches in time linear in the input, so no `pattern` can backtrack exponentially; it
// needs the `u` flag, and refuses what it cannot do in linear time (backreferences, lookaround).
const linearRegExp = (pattern: string, flags: string) => new RE2(pattern, flags.includes('u') ? flags : `${flags}u`);
linearRegExp.code = 'new RE2';

// Only checks schemas against the 2020-12 meta-schema: it compiles nothing a client sends.
const metaValidator = new Ajv2020({ strict: false });

/**
 * A fresh Ajv per schema, registering nothing: no `$id` is shared between schemas (so between
 * tenants), and a `$ref` can reach only the schema it is written in.
 */
function compile(schema: object): ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: false, addUsedSchema: false, validateSchema: false, code: { regExp: linearRegExp } });
  return ajv.compile(schema);
}

// Measured: a compiled schema holds about 125 times its JSON's size (generated code and the
// Ajv behind it), plus a few kilobytes however small it is.
const estimatedBytes = (schemaBytes: number) => 8 * 1024 + 128 * schemaBytes;

const compiled = new LRUCache<string, ValidateFunction>({
  maxSize: SCHEMA_LIMITS.cacheBytes,
  sizeCalculation: (_value, key) => estimatedBytes(Buffer.byteLength(key)),
});

function problemOfSchema(schema: unknown): string | null {
  if (typeof schema === 'boolean') return null;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  const limit = schemaLimitProblem(schema, Buffer.byteLength(JSON.stringify(schema)));
  if (limit) return limit;
  if (!metaValidator.validateSchema(schema)) return metaValidator.errorsText(metaValidator.errors, { dataVar: 'schema' });
  // Compiled only to prove it compiles (every $ref resolves, every pattern is linear), then
  // dropped: a request refused by a later check keeps nothing.
  compile(schema);
  return null;
}

function describe(error: ErrorObject, root: string): string {
  const where = error.instancePath ? `${root}${error.instancePath.replace(/\//g, '.')}` : root;
  return `${where} ${error.message ?? 'is invalid'}`;
}

function problemOfValue(schema: object, value: unknown, root: string): string | null {
  const key = canonicalJson(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = compile(schema);
    compiled.set(key, validate);
  }
  if (validate(value)) return null;
  return describe(validate.errors![0], root);
}

function answer(request: SchemaRequest): SchemaResponse {
  try {
    const problem = request.op === 'schema' ? problemOfSchema(request.schema) : problemOfValue(request.schema as object, request.value, request.root);
    return { id: request.id, problem };
  } catch (error) {
    // ajv's compile errors (an unresolvable $ref, a pattern RE2 refuses) are the client's.
    return { id: request.id, problem: (error as Error).message || 'cannot be compiled' };
  }
}

// The meta-schema compiles once, before the first deadline starts.
// Called for its side effect (compiling the meta-schema); the result is not needed. Ajv types it as
// boolean | Promise for $async schemas, and the meta-schema is synchronous, so there is no promise to drop.
void metaValidator.validateSchema({});
parentPort!.on('message', (request: SchemaRequest) => parentPort!.postMessage(answer(request)));
parentPort!.postMessage('ready');
