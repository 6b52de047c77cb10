import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from './error-codes';

/** Flattens class-validator's tree into `{field, message}` pairs with dotted paths. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      details.push({
        field,
        message: message.replace(/^property (\S+) should not exist$/, 'is not allowed'),
      });
    }
    if (error.children?.length) details.push(...flattenValidationErrors(error.children, field));
  }
  return details;
}

export function validationFailed(details: ErrorDetail[]): AppError {
  const message = details.map((d) => `${d.field}: ${d.message}`).join('; ');
  return new AppError('validation_failed', message || 'Request is not valid', details);
}

/**
 * Path parameters are left as the text they arrived as: a `number`-typed id would otherwise be
 * converted with Number() before ParseIdPipe sees it, and `01` or ` 1` would name post 1 (D18).
 */
class BodyAndQueryValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'param') return Promise.resolve(value);
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
