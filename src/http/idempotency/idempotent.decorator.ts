import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiErrors } from '../errors/api-errors.decorator';
import { IDEMPOTENCY_HEADER } from './idempotency-header';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Above a body-reading interceptor's `@UseInterceptors`, so the body is hashed first. */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_HEADER,
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
      description:
        'Makes a retry safe: 1–255 printable ASCII characters, kept for 24 hours per API key. ' +
        'The same key with the same method, path and body returns the first answer again (2xx or 4xx) with ' +
        '`Idempotent-Replayed: true`, and nothing is done twice; with a different request it is ' +
        '422 idempotency_key_reused; while the first request still runs, 409 idempotency_key_in_use.',
    }),
    // A malformed key is 400 validation_failed, which every such route documents already.
    ApiErrors('idempotency_key_reused', 'idempotency_key_in_use'),
  );
}
