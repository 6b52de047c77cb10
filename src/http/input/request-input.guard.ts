import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { routeRules } from '../../access/route-metadata';
import { validationFailed } from '../errors/validation';
import type { BodyRequest } from './json-body';
import { unstorableText } from './unstorable-text';

/** The last global guard: held body errors and unstorable text are raised only now. */
@Injectable()
export class RequestInputGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<BodyRequest>();
    if (request.bodyParseError) throw request.bodyParseError;
    const operation = routeRules(this.reflector, context).rulesPerOperation?.(request.body);
    const body = operation ? undefined : request.body;
    const unstorable = unstorableText(body, true) ?? unstorableText(request.query);
    if (unstorable) throw validationFailed([unstorable]);
    return true;
  }
}
