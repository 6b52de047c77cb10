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

/**
 * Everything the global guards (docs/api-rules.md#order-of-checks) check about a route, as its
 * decorators declare it.
 */
export interface RouteRules {
  /** Undefined: the route declares no access rule, and is refused. */
  authKind: AuthKind | undefined;
  scopes: Scope[] | undefined;
  whenBodySets: BodyFieldRequirement | undefined;
  permission: PermissionRequirement | undefined;
  anySignedInUser: boolean;
  adminOnly: boolean;
  /**
   * Set: only the key and the rate limit are checked here; an operation runs its own route's rules.
   */
  rulesPerOperation: ((body: unknown) => boolean) | undefined;
  rateLimitCategory: RateLimitCategoryName;
}

/** Handler → controller class → its rules. Decorators run once, at class definition. */
const cache = new WeakMap<object, WeakMap<object, RouteRules>>();

/**
 * The route's rules, read once per route and remembered: every global guard needs some of them
 * on every request, and each read walks reflect-metadata's prototype chain for the handler and
 * its class. A method's declaration overrides its class's.
 */
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

/** A route that declares no access rule is a programming error, and is refused rather than opened. */
export function undeclaredRoute(): AppError {
  return new AppError('forbidden', 'This route declares no access rule');
}
