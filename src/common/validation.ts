import { ArgumentMetadata, ValidationError as FieldError, ValidationPipe } from '@nestjs/common';
import { IsObject, ValidateBy, ValidationOptions } from 'class-validator';
import { ValidationError } from './errors/request-errors';
import { codePointLength } from './code-points';

/** Length limits count Unicode code points (docs/api.md#conventions); class-validator's own count differs for emoji. */
export function CodePointLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'codePointLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && codePointLength(value) >= min && codePointLength(value) <= max,
        defaultMessage: (args) =>
          typeof args?.value === 'string' && args.value.length === 0
            ? `${args.property} must not be empty`
            : `${args?.property} must be from ${min} to ${max} characters`,
      },
    },
    options,
  );
}

function firstProblem(errors: FieldError[], prefix = ''): string | null {
  for (const error of errors) {
    const path = `${prefix}${error.property}`;
    if (error.constraints) {
      if (error.constraints.whitelistValidation) return `${path} is not a known field`;
      // Report the check that was declared first: "is required" before "must be a string".
      const messages = Object.values(error.constraints);
      const message = messages[messages.length - 1];
      return message.startsWith(error.property) ? `${prefix}${message}` : `${path} ${message}`;
    }
    const nested = firstProblem(error.children ?? [], `${path}.`);
    if (nested) return nested;
  }
  return null;
}

/** The free-form fields of each DTO class, by FreeFormObject. */
const freeFormFields = new WeakMap<object, string[]>();

/**
 * A JSON object the DTO does not describe (`config`, `metadata`): checked to be an object, then
 * handed on as parsed. class-transformer would copy it key by key twice (into the class and back),
 * ~10 ms for a 2,000-step script, on the event loop.
 */
export function FreeFormObject(options: ValidationOptions): PropertyDecorator {
  return (target, property) => {
    IsObject(options)(target, property);
    const fields = freeFormFields.get(target.constructor) ?? [];
    freeFormFields.set(target.constructor, [...fields, String(property)]);
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const POLLUTING_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Parsed bodies whose text names none of the POLLUTING_KEYS at any depth (http/json-body.ts). */
const freeOfPollutingKeys = new WeakSet<object>();

/**
 * The body parser's word that this value holds none of the POLLUTING_KEYS: its text spells out every
 * key (no `\u` escape) and none of them. The pipe then skips the walk that would strip them: ~0.1 ms
 * for a 2,000-step script.
 */
export function vouchFreeOfPollutingKeys(body: object): void {
  freeOfPollutingKeys.add(body);
}

/** What the pipe's stripProtoKeys does to parsed JSON, in one pass without its per-node type checks. */
function stripPollutingKeys(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) stripPollutingKeys(item);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    if (POLLUTING_KEYS.has(key)) delete object[key];
    else stripPollutingKeys(object[key]);
  }
}

/**
 * Nest's ValidationPipe, except that a free-form object is validated as `{}` (so an object passes
 * and anything else fails exactly as before) and put back afterwards, with the prototype-polluting
 * keys (`__proto__`, `constructor`, `prototype`) stripped from it as the pipe strips them elsewhere.
 */
class DtoValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const fields = metadata.metatype ? freeFormFields.get(metadata.metatype) : undefined;
    if (!fields || !isObject(value)) return super.transform(value, metadata);
    const held = fields.filter((field) => isObject(value[field])).map((field) => [field, value[field]] as const);
    const shallow: Record<string, unknown> = { ...value };
    for (const [field] of held) shallow[field] = {};
    const checked = (await super.transform(shallow, metadata)) as Record<string, unknown>;
    const vouched = freeOfPollutingKeys.has(value);
    for (const [field, object] of held) {
      if (!vouched) stripPollutingKeys(object);
      checked[field] = object;
    }
    return checked;
  }

  /** Route parameters and queries arrive as they came: `transform` is on for the DTOs alone. */
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }
}

/** One validation voice for every DTO: the binding's VALIDATION_ERROR with the first problem found. */
export const dtoValidationPipe = () =>
  new DtoValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // Handlers get the DTO class-transformer made of the body and class-validator checked, except
    // the free-form objects, which arrive as parsed (FreeFormObject). Without it the pipe copies
    // that DTO once more into a plain object (~9 µs of every request with a body).
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationError(firstProblem(errors) ?? 'request body is invalid'),
  });
