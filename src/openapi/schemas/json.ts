import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** Property options shared by the response schemas. */
export const ISO_TIME = { type: String, format: 'date-time', example: '2026-09-02T10:00:00.000Z' } as const;
export const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;

/** Any JSON value (OpenAPI 3.0 has no `{}` shorthand that every tool reads the same way). */
export const ANY_JSON: SchemaObject[] = [
  { type: 'string' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'array', items: {} },
  { type: 'object', additionalProperties: true },
];
