import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { validationFailed } from '../errors/validation';
import type { BodyRequest } from './json-body';
import { fieldWithNul } from './nul-character';

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/**
 * The last global guard: D5's last step begins here. The body's own errors, held by the body
 * parser, are raised only now that key, rate limit, scope, project and flag have passed (D18),
 * and a NUL character in any body or query string is refused for every route.
 */
@Injectable()
export class RequestInputGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<BodyRequest>();
    if (request.heldBodyError) throw request.heldBodyError;
    const field = fieldWithNul(request.body) ?? fieldWithNul(request.query);
    if (field !== null) throw validationFailed([{ field, message: NUL_MESSAGE }]);
    return true;
  }
}
