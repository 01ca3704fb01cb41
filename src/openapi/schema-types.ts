import { getSchemaPath } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** Property options shared by the response classes. */
export const ISO_TIME = { type: String, format: 'date-time', example: '2026-09-02T10:00:00.000Z' } as const;
export const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;

/**
 * Exactly `null`, in OpenAPI 3.0: `nullable` only adds null to a `type` beside it, so
 * `nullable` next to `allOf: [$ref]` (what the library writes for a nullable class) still rejects null.
 */
const NULL: SchemaObject = { type: 'object', nullable: true, enum: [null] };

/** Any JSON value, null included (OpenAPI 3.0 has no `{}` shorthand that every tool reads the same way). */
export const ANY_JSON: SchemaObject[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'array', items: {} },
  { type: 'object', additionalProperties: true },
  NULL,
];

/** A response class, or null. The class must also be registered (`@ApiExtraModels`), as a `$ref` alone does not. */
export const nullable = (model: new () => object, description?: string) => ({ oneOf: [{ $ref: getSchemaPath(model) }, NULL], description });
