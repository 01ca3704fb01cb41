import { ValidationError as FieldError, ValidationPipe } from '@nestjs/common';
import { ValidateBy, ValidationOptions } from 'class-validator';
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

/** One validation voice for every DTO: the binding's VALIDATION_ERROR with the first problem found. */
export const dtoValidationPipe = () =>
  new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // Handlers get the body as parsed, not class-transformer's copy, which drops keys such as
    // `toString` or `constructor` inside free-form objects (`config`, `metadata`).
    transform: false,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ValidationError(firstProblem(errors) ?? 'request body is invalid'),
  });
