import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { routeRules } from '../../access/route-metadata';
import { validationFailed } from '../errors/validation';
import type { BodyRequest } from './json-body';
import { unstorableText } from './unstorable-text';

/**
 * The last global guard: the last of the checks (docs/api-rules.md#order-of-checks) begins here.
 * The body's own errors, held by the body parser, are raised only now that key, rate limit,
 * scope, project and flag have passed,
 * and text PostgreSQL cannot store (a NUL character, an unpaired surrogate) in any body or query
 * string is refused for every route, as is a body key that names the prototype (`__proto__`).
 */
@Injectable()
export class RequestInputGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<BodyRequest>();
    if (request.bodyParseError) throw request.bodyParseError;
    // A body naming another route's operation has its text checked with that operation's rules.
    const operation = routeRules(this.reflector, context).rulesPerOperation?.(request.body);
    const body = operation ? undefined : request.body;
    const unstorable = unstorableText(body, true) ?? unstorableText(request.query);
    if (unstorable) throw validationFailed([unstorable]);
    return true;
  }
}
