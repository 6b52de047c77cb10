import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeysService } from '../domains/api-keys/api-keys.service';
import { bearerToken } from '../domains/api-keys/api-key-format';
import { AppError } from '../http/errors/error-codes';
import { AuthFailureLimiter } from '../infrastructure/rate-limit/auth-failure-limiter';
import { bodySetsAny } from './decorators';
import type { HeraldRequest } from './principal';
import { routeRules } from './route-metadata';
import { SessionsService } from '../domains/users/sessions.service';

/** A route that declares no access rule is a programming error, and is refused rather than opened. */
export function undeclaredRoute(): AppError {
  return new AppError('forbidden', 'This route declares no access rule');
}

/**
 * Public API routes: `Authorization: Bearer hrld_live_…` or `hrld_test_…`. The first of the
 * checks (docs/api-rules.md#order-of-checks).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly authFailures: AuthFailureLimiter,
  ) {}

  /** Synchronous when there is nothing to check: Nest awaits only a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const kind = routeRules(this.reflector, context).authKind;
    if (kind === undefined) throw undeclaredRoute();
    if (kind !== 'api_key') return true;
    return this.authenticate(context.switchToHttp().getRequest<HeraldRequest>());
  }

  private async authenticate(request: HeraldRequest): Promise<boolean> {
    // Failed authentications are limited per client address: 429 once over the limit. A valid
    // key always passes, so clients behind one address (a NAT) never lock each other out.
    try {
      request.principal = await this.apiKeys.authenticate(
        bearerToken(request.headers.authorization),
      );
    } catch (error) {
      this.authFailures.assertNotBlocked(request);
      throw await this.authFailures.failed(request, error);
    }
    return true;
  }
}

/** Application API routes: `Authorization: Bearer <session token>`. */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const rules = routeRules(this.reflector, context);
    if (rules.authKind !== 'session') return true;
    return this.authenticate(context.switchToHttp().getRequest<HeraldRequest>(), rules.adminOnly);
  }

  private async authenticate(request: HeraldRequest, adminOnly: boolean): Promise<boolean> {
    const principal = await this.sessions.authenticate(bearerToken(request.headers.authorization));
    request.principal = principal;
    if (adminOnly && !principal.user.isAdmin) {
      throw new AppError('forbidden', 'This section is available to administrators only');
    }
    return true;
  }
}

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
