import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from './error-codes';

/**
 * class-validator constraints from the most telling to the least: a missing or unexpected field
 * first, then a wrong type, then the field's range or format. One message per field is shown.
 */
const CONSTRAINT_PRIORITY = [
  'whitelistValidation',
  'isDefined',
  'isNotEmpty',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isEnum',
  'isIn',
  'nestedValidation',
];

function rank(constraint: string): number {
  const index = CONSTRAINT_PRIORITY.indexOf(constraint);
  return index < 0 ? CONSTRAINT_PRIORITY.length : index;
}

/** The one message shown for a field: the highest-ranked constraint that failed. */
export function mostUsefulMessage(constraints: Record<string, string>): string | null {
  const names = Object.keys(constraints);
  if (names.length === 0) return null;
  const best = names.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  return constraints[best].replace(/^property (\S+) should not exist$/, 'is not allowed');
}

/** Flattens class-validator's tree into one `{field, message}` per bad field, dotted paths. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const constraints = error.constraints ?? {};
    // A field that is simply absent says so, rather than listing what its value would need.
    const missing = error.value === undefined && !('whitelistValidation' in constraints);
    const message =
      missing && Object.keys(constraints).length > 0
        ? `${error.property} is required`
        : mostUsefulMessage(constraints);
    if (message !== null && !details.some((d) => d.field === field))
      details.push({ field, message });
    if (error.children?.length) details.push(...flattenValidationErrors(error.children, field));
  }
  return details;
}

export function validationFailed(details: ErrorDetail[]): AppError {
  const message = details.map((d) => `${d.field}: ${d.message}`).join('; ');
  return new AppError('validation_failed', message || 'Request is not valid', details);
}

const OPTIONAL_BODY = Symbol('optional body');

/**
 * Marks a body whose every field may be left out as one that may be left out altogether: a
 * request without a body reads as `{}`. Every other route still refuses a request without one.
 */
export function OptionalBody(): ClassDecorator {
  return (target) => Reflect.defineMetadata(OPTIONAL_BODY, true, target);
}

function takesNoBody(metatype: unknown): boolean {
  return typeof metatype === 'function' && Reflect.getMetadata(OPTIONAL_BODY, metatype) === true;
}

/**
 * Path parameters are left as the text they arrived as: a `number`-typed id would otherwise be
 * converted with Number() before ParseIdPipe sees it, and `01` or ` 1` would name post 1.
 * A route that takes a body requires one: no body at all (an empty request, or one that is not
 * JSON) is refused like `null`, rather than read as an empty object whose optional fields all
 * happen to be absent.
 */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'param') return Promise.resolve(value);
    const wholeBody = metadata.type === 'body' && metadata.data === undefined;
    if (wholeBody && value === undefined && takesNoBody(metadata.metatype))
      return super.transform({}, metadata) as Promise<unknown>;
    if (wholeBody && value === undefined)
      return Promise.reject(
        new AppError('validation_failed', 'Request body must be a JSON object'),
      );
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new BodyAndQueryValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: (errors) => validationFailed(flattenValidationErrors(errors)),
  });
}
