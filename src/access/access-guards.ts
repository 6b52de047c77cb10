import type { Type } from '@nestjs/common';
import { RequestInputGuard } from '../http/input/request-input.guard';
import { ApiKeyGuard } from './api-key.guard';
import { PermissionGuard } from './permission.guard';
import { RateLimitGuard } from './rate-limit.guard';
import { ScopeGuard } from './scope.guard';
import { SessionGuard } from './session.guard';

/**
 * Every request's checks, in the order they run (docs/api-rules.md#order-of-checks), registered
 * as global guards in this order by AppModule:
 *
 * 1. ApiKeyGuard: the public API's key (401), refused at once for a route that declares no rule;
 * 2. SessionGuard: the application API's session (401), administrators only where declared (403).
 *    It does nothing on the public API; on the application API it names the user the rate limit
 *    counts;
 * 3. RateLimitGuard: the key's or user's counter (429 with Retry-After);
 * 4. ScopeGuard: the key's scopes (403 insufficient_scope);
 * 5. PermissionGuard: the route's project (404 project_not_found or the resource's not-found),
 *    then the member's flag (403 forbidden);
 * 6. RequestInputGuard: the body's and query's own errors, held until now (400).
 */
export const ACCESS_GUARDS: readonly Type[] = [
  ApiKeyGuard,
  SessionGuard,
  RateLimitGuard,
  ScopeGuard,
  PermissionGuard,
  RequestInputGuard,
];
