/**
 * Just enough JSON Schema for forms: an object of scalar properties becomes one field each, and
 * the answer is checked for the keywords below before it is sent. Anything richer is edited as
 * JSON; the server checks every answer against the full schema either way (docs/api.md#actions).
 */
export type Schema = Record<string, unknown>;

export interface Field {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean';
  required: boolean;
  options: unknown[] | null;
  description: string | null;
}

const SCALARS = new Set(['string', 'number', 'integer', 'boolean']);

/** The fields of a flat object schema, or null when it needs the JSON editor. */
export function fieldsOf(schema: Schema | null): Field[] | null {
  if (schema === null || schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) return null;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.properties as Record<string, Schema>)) {
    if (typeof raw.type !== 'string' || !SCALARS.has(raw.type)) return null;
    fields.push({
      name,
      type: raw.type as Field['type'],
      required: required.includes(name),
      options: Array.isArray(raw.enum) ? raw.enum : null,
      description: typeof raw.description === 'string' ? raw.description : null,
    });
  }
  return fields;
}

/** Problems with `value` against the keywords this form knows; [] when none. */
export function problems(schema: Schema | null, value: unknown, at = 'the answer'): string[] {
  if (schema === null) return [];
  const out: string[] = [];
  const type = schema.type;
  if (typeof type === 'string' && !hasType(value, type)) return [`${at} must be ${type === 'integer' ? 'an integer' : `a ${type}`}`];
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value)))
    out.push(`${at} must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(', ')}`);
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) out.push(`${at} must have at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) out.push(`${at} must have at most ${schema.maxLength} characters`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) out.push(`${at} must be at least ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) out.push(`${at} must be at most ${schema.maximum}`);
  }
  if (type === 'object' && typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const name of Array.isArray(schema.required) ? (schema.required as string[]) : []) if (!(name in object)) out.push(`${name} is required`);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const [name, child] of Object.entries(properties)) if (name in object) out.push(...problems(child, object[name], name));
  }
  return out;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}
