import Ajv2020, { ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import { canonicalJson } from './canonical-json';

// One instance: compiled schemas are cached by their canonical JSON, since the same action
// schema is checked on every answer.
const ajv = new Ajv2020({ allErrors: false, strict: false });
const compiled = new Map<string, ValidateFunction>();

/** Null when `schema` is a valid JSON Schema 2020-12, else why not. */
export function schemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' && typeof schema !== 'boolean') return 'must be a JSON Schema object';
  if (schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  try {
    if (!ajv.validateSchema(schema as object)) return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
    validatorFor(schema as object);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function validatorFor(schema: object): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

function describe(error: ErrorObject, root: string): string {
  const where = error.instancePath ? `${root}${error.instancePath.replace(/\//g, '.')}` : root;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** Null when `value` satisfies `schema`, else a message in the VALIDATION_ERROR style. */
export function valueProblem(schema: object, value: unknown, root = 'value'): string | null {
  const validate = validatorFor(schema);
  if (validate(value)) return null;
  return describe(validate.errors![0], root);
}
