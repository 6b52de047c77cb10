import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { bearerToken } from '../domains/api-keys/api-key-format';
import { ApiKeysService } from '../domains/api-keys/api-keys.service';
import { AuthFailureLimiter } from '../infrastructure/rate-limit/auth-failure-limiter';
import type { HeraldRequest } from './principal';
import { routeRules, undeclaredRoute } from './route-metadata';

/** `Bearer hrld_live_…` or `hrld_test_…`, the first check (docs/api-rules.md#order-of-checks). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly apiKeys: ApiKeysService,
    private readonly authFailures: AuthFailureLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const kind = routeRules(this.reflector, context).authKind;
    if (kind === undefined) throw undeclaredRoute();
    if (kind !== 'api_key') return true;
    return this.authenticate(context.switchToHttp().getRequest<HeraldRequest>());
  }

  private async authenticate(request: HeraldRequest): Promise<boolean> {
    // Limited per address, but a valid key always passes: clients behind one NAT never lock out.
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
