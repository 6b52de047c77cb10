import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { bearerToken } from '../domains/api-keys/api-key-format';
import { SessionsService } from '../domains/users/sessions.service';
import { AppError } from '../http/errors/error-codes';
import type { HeraldRequest } from './principal';
import { routeRules } from './route-metadata';

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
