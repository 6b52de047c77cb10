import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { AppError } from '../http/errors/error-codes';
import type { Scope } from './scopes';
import {
  DEFAULT_RATE_LIMIT_CATEGORY,
  RateLimitCategory,
  RateLimitCategoryName,
} from './rate-limit-category';
import {
  AdminOnlyMetadata,
  AnySignedInUserMetadata,
  AUTH_KIND,
  AuthKind,
  BodyFieldRequirement,
  PermissionMetadata,
  PermissionRequirement,
  RulesPerOperationMetadata,
  ScopeMetadata,
  WhenBodySetsMetadata,
} from './decorators';

export interface RouteRules {
  /** Undefined: the route declares no access rule, and is refused. */
  authKind: AuthKind | undefined;
  scopes: Scope[] | undefined;
  whenBodySets: BodyFieldRequirement | undefined;
  permission: PermissionRequirement | undefined;
  anySignedInUser: boolean;
  adminOnly: boolean;
  /** Set: only key and rate limit are checked here; an operation runs its own route's rules. */
  rulesPerOperation: ((body: unknown) => boolean) | undefined;
  rateLimitCategory: RateLimitCategoryName;
}

const cache = new WeakMap<object, WeakMap<object, RouteRules>>();

/** Read once per route (every guard needs them); a method's declaration overrides its class's. */
export function routeRules(reflector: Reflector, context: ExecutionContext): RouteRules {
  const handler = context.getHandler();
  const controller = context.getClass();
  let byClass = cache.get(handler);
  if (byClass === undefined) {
    byClass = new WeakMap();
    cache.set(handler, byClass);
  }
  let rules = byClass.get(controller);
  if (rules === undefined) {
    const read = <T>(key: string | object): T | undefined =>
      reflector.getAllAndOverride<T>(key as string, [handler, controller]);
    rules = {
      authKind: read<AuthKind>(AUTH_KIND),
      scopes: read<Scope[]>(ScopeMetadata),
      whenBodySets: read<BodyFieldRequirement>(WhenBodySetsMetadata),
      permission: read<PermissionRequirement>(PermissionMetadata),
      anySignedInUser: read<boolean>(AnySignedInUserMetadata) === true,
      adminOnly: read<boolean>(AdminOnlyMetadata) === true,
      rulesPerOperation: read<(body: unknown) => boolean>(RulesPerOperationMetadata),
      rateLimitCategory:
        read<RateLimitCategoryName>(RateLimitCategory) ?? DEFAULT_RATE_LIMIT_CATEGORY,
    };
    byClass.set(controller, rules);
  }
  return rules;
}

export function undeclaredRoute(): AppError {
  return new AppError('forbidden', 'This route declares no access rule');
}
