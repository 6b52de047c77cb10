import {
  applyDecorators,
  createParamDecorator,
  ExecutionContext,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { PermissionFlag } from './permissions';
import type { HeraldRequest } from './principal';
import type { ProjectAccess } from './project-access';
import { RateLimitCategory, type RateLimitCategoryName } from './rate-limit-category';
import type { Scope } from './scopes';

/*
 * A route states its whole access rule in one decorator, one per API surface: `@PublicApi`
 * (API keys), `@AppApi` (sessions) or `@OpenRoute` (nobody signed in). The global guards read
 * what it declares (route-metadata.ts) in the order of docs/api-rules.md#order-of-checks; a
 * route that declares none of them is refused.
 */

export type AuthKind = 'api_key' | 'session' | 'public';
export const AUTH_KIND = 'herald:auth-kind';

export const PUBLIC_API_PREFIX = 'api/public/v1';
export const PUBLIC_API_TAG = 'Public API';
export const APP_API_TAG = 'Application API';

/**
 * Where a route's project comes from. By default: path `:projectId`, then query `project_id`,
 * then body `project_id`. `param` alone names another path parameter holding the project id; with
 * `resource` (`'account'`, `'post'`, …), the parameter holds that resource's id and its project is
 * looked up by the provider marked `@LooksUpProjectOf` for it (project-lookups.ts).
 */
export interface ProjectSource {
  param?: string;
  resource?: string;
}

export interface PermissionRequirement {
  /** The flag the member must hold; null when membership alone is enough. */
  flag: PermissionFlag | null;
  source: ProjectSource;
}

/** Extra requirements a route has when its JSON body sets one of `fields` (e.g. `scheduled_at`). */
export interface BodyFieldRequirement {
  fields: string[];
  /** Checked by ScopeGuard with the route's own scopes (before the project). */
  scopes?: Scope[];
  /** Checked by PermissionGuard after the route's own flag (before validation). */
  flag?: PermissionFlag;
}

/** The rule of a public API route, checked against the caller's API key. */
export type PublicApiRule =
  | {
      /** The scope the key must hold. */
      scope: Scope;
      /**
       * The member flag the key's owner needs in the route's project (null: membership alone).
       * Left out, the route acts on no single project (the key's projects, its usage).
       */
      permission?: PermissionFlag | null;
      project?: ProjectSource;
      /** The counter the route is counted in (docs/api-rules.md#rate-limits); `other` if left out. */
      rateLimit?: RateLimitCategoryName;
      /** e.g. a create that also schedules or publishes needs the publish rights. */
      whenBodySets?: BodyFieldRequirement;
    }
  | {
      /**
       * The body names an operation of another route (the MCP endpoint's tool calls): only the key
       * and the rate limit are checked for the request, and a body for which this holds is then
       * checked only as its operation, with that route's rules (the tool requests its route in-process), counted in that
       * route's category, not twice. Any other body (a protocol message, an unreadable one) needs
       * no scope or project and is counted in the route's own category.
       */
      rulesPerOperation: (body: unknown) => boolean;
    };

/** The rule of an application API route, checked against the caller's session. */
export type AppApiRule =
  | {
      /** The member flag the user needs in the route's project (null: membership alone). */
      permission: PermissionFlag | null;
      project?: ProjectSource;
      whenBodySets?: Omit<BodyFieldRequirement, 'scopes'>;
    }
  /** Open to any signed-in user: the route checks no project. */
  | { anySignedInUser: true }
  /** For administrators only (creating API keys). */
  | { adminOnly: true };

export const ScopeMetadata = Reflector.createDecorator<Scope[]>();
export const PermissionMetadata = Reflector.createDecorator<PermissionRequirement>();
export const WhenBodySetsMetadata = Reflector.createDecorator<BodyFieldRequirement>();
export const RulesPerOperationMetadata = Reflector.createDecorator<(body: unknown) => boolean>();
export const AnySignedInUserMetadata = Reflector.createDecorator<true>();
export const AdminOnlyMetadata = Reflector.createDecorator<true>();

type RouteDecorator = ClassDecorator & MethodDecorator;

/** The scopes an API key needs for the route (all of them); ScopeGuard checks them. */
export const RequireScope = (...scopes: Scope[]): RouteDecorator => ScopeMetadata(scopes);

/**
 * The member flag the route needs in its project (null: membership alone); PermissionGuard
 * resolves the project from `source` and checks the flag. The project's owner always passes.
 */
export const RequirePermission = (
  flag: PermissionFlag | null,
  source: ProjectSource = {},
): RouteDecorator => PermissionMetadata({ flag, source });

/** A public API route: Bearer API key, its scope, the project's flag and a rate-limit counter. */
export function PublicApi(rule: PublicApiRule): RouteDecorator {
  const decorators = [
    SetMetadata(AUTH_KIND, 'api_key'),
    ApiBearerAuth('api-key'),
    ApiTags(PUBLIC_API_TAG),
  ];
  if ('rulesPerOperation' in rule) {
    decorators.push(RulesPerOperationMetadata(rule.rulesPerOperation));
    return applyDecorators(...decorators);
  }
  decorators.push(RequireScope(rule.scope));
  if (rule.permission !== undefined) {
    decorators.push(RequirePermission(rule.permission, rule.project));
  }
  if (rule.rateLimit) decorators.push(RateLimitCategory(rule.rateLimit));
  if (rule.whenBodySets) decorators.push(WhenBodySetsMetadata(rule.whenBodySets));
  return applyDecorators(...decorators);
}

/** An application API route: Bearer session token, then the project's flag or who may call it. */
export function AppApi(rule: AppApiRule): RouteDecorator {
  const decorators = [
    SetMetadata(AUTH_KIND, 'session'),
    ApiBearerAuth('session'),
    ApiTags(APP_API_TAG),
  ];
  if ('anySignedInUser' in rule) decorators.push(AnySignedInUserMetadata(true));
  else if ('adminOnly' in rule) decorators.push(AdminOnlyMetadata(true));
  else {
    decorators.push(RequirePermission(rule.permission, rule.project));
    if (rule.whenBodySets) decorators.push(WhenBodySetsMetadata(rule.whenBodySets));
  }
  return applyDecorators(...decorators);
}

/** No authentication at all (health, metrics behind their own token, sign-in, served media). */
export const OpenRoute = (): RouteDecorator => SetMetadata(AUTH_KIND, 'public');

/** A field counts as set when present and neither null nor false. */
export function bodySetsAny(body: unknown, fields: readonly string[]): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return fields.some((f) => record[f] !== undefined && record[f] !== null && record[f] !== false);
}

/** The project the route acts on, resolved and checked by PermissionGuard. */
export const CurrentProject = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ProjectAccess => {
    const access = ctx.switchToHttp().getRequest<HeraldRequest>().projectAccess;
    if (!access) throw new Error('CurrentProject used on a route that names no project permission');
    return access;
  },
);
