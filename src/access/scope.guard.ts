import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppError } from '../http/errors/error-codes';
import { bodySetsAny } from './decorators';
import type { HeraldRequest } from './principal';
import { routeRules, undeclaredRoute } from './route-metadata';

/** The key must hold every scope the route names; a public route naming none is refused. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rules = routeRules(this.reflector, context);
    if (rules.authKind !== 'api_key' || rules.rulesPerOperation !== undefined) return true;
    const needed = rules.scopes;
    if (!needed || needed.length === 0) throw undeclaredRoute();
    const request = context.switchToHttp().getRequest<HeraldRequest>();
    const extra = rules.whenBodySets;
    const all =
      extra?.scopes && bodySetsAny(request.body, extra.fields)
        ? [...needed, ...extra.scopes]
        : needed;
    const held = request.principal?.apiKey?.scopes ?? [];
    const missing = all.filter((scope) => !held.includes(scope));
    if (missing.length > 0) {
      throw new AppError(
        'insufficient_scope',
        `This API key lacks the scope ${missing.join(', ')}`,
      );
    }
    return true;
  }
}
