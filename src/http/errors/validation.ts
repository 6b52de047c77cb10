import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from './error-codes';

/** Most telling first; one message per field is shown. */
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

export function mostUsefulMessage(constraints: Record<string, string>): string | null {
  const names = Object.keys(constraints);
  if (names.length === 0) return null;
  const best = names.reduce((a, b) => (rank(b) < rank(a) ? b : a));
  return constraints[best].replace(/^property (\S+) should not exist$/, 'is not allowed');
}

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

/** A request without a body then reads as `{}`; every other route refuses one. */
export function OptionalBody(): ClassDecorator {
  return (target) => Reflect.defineMetadata(OPTIONAL_BODY, true, target);
}

function takesNoBody(metatype: unknown): boolean {
  return typeof metatype === 'function' && Reflect.getMetadata(OPTIONAL_BODY, metatype) === true;
}

/** Path parameters stay text for ParseIdPipe (`01` is no id); a missing body is like `null`. */
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
