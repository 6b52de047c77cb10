import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { bearerToken } from '../api-keys/api-key-format';
import { AppError } from '../errors/error-codes';
import { AuthFailureLimiter } from '../rate-limit/auth-failure-limiter';
import {
  AdminOnly,
  AUTH_KIND,
  AuthKind,
  bodySetsAny,
  ScopeMetadata,
  WhenBodySets,
} from './decorators';
import type { HeraldRequest } from './principal';
import { SessionsService } from './sessions.service';

export function authKindOf(reflector: Reflector, context: ExecutionContext): AuthKind | undefined {
  return reflector.getAllAndOverride<AuthKind | undefined>(AUTH_KIND, [
    context.getHandler(),
    context.getClass(),
  ]);
}

/** A route that declares no access rule is a programming error, and is refused rather than opened. */
export function undeclaredRoute(): AppError {
  return new AppError('forbidden', 'This route declares no access rule');
}

/** Public API routes: `Authorization: Bearer hrld_live_…` or `hrld_test_…` (D3, D22). First guard of D5. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly authFailures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const kind = authKindOf(this.reflector, context);
    if (kind === undefined) throw undeclaredRoute();
    if (kind !== 'api_key') return true;
    const request = context.switchToHttp().getRequest<HeraldRequest>();
    // Failed authentications are limited per client IP (SERVICE.md 8): 429 once over the limit.
    this.authFailures.assertNotBlocked(request);
    try {
      request.principal = await this.apiKeys.authenticate(
        bearerToken(request.headers.authorization),
      );
    } catch (error) {
      throw await this.authFailures.failed(request, error);
    }
    return true;
  }
}

/** Application API routes: `Authorization: Bearer <session token>` (D13). */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (authKindOf(this.reflector, context) !== 'session') return true;
    const request = context.switchToHttp().getRequest<HeraldRequest>();
    const principal = await this.sessions.authenticate(bearerToken(request.headers.authorization));
    request.principal = principal;
    const adminOnly = this.reflector.getAllAndOverride(AdminOnly, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (adminOnly && !principal.user.isAdmin) {
      throw new AppError('forbidden', 'This section is available to administrators only');
    }
    return true;
  }
}

/** D4: the key must hold every scope the route names; a public route naming none is refused. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (authKindOf(this.reflector, context) !== 'api_key') return true;
    const targets = [context.getHandler(), context.getClass()];
    const needed = this.reflector.getAllAndOverride(ScopeMetadata, targets);
    if (!needed || needed.length === 0) throw undeclaredRoute();
    const request = context.switchToHttp().getRequest<HeraldRequest>();
    const extra = this.reflector.getAllAndOverride(WhenBodySets, targets);
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
