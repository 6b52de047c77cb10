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

// One decorator per API surface states a route's access rule; a route declaring none is refused.

export type AuthKind = 'api_key' | 'session' | 'public';
export const AUTH_KIND = 'herald:auth-kind';

export const PUBLIC_API_PREFIX = 'api/public/v1';
export const PUBLIC_API_TAG = 'Public API';
export const APP_API_TAG = 'Application API';

/** Default: path `:projectId`, query, body `project_id`; `resource` uses project-lookups.ts. */
export interface ProjectSource {
  param?: string;
  resource?: string;
}

export interface PermissionRequirement {
  /** Null when membership alone is enough. */
  flag: PermissionFlag | null;
  source: ProjectSource;
}

/** Extra requirements when the JSON body sets one of `fields` (e.g. `scheduled_at`). */
export interface BodyFieldRequirement {
  fields: string[];
  scopes?: Scope[];
  flag?: PermissionFlag;
}

export type PublicApiRule =
  | {
      scope: Scope;
      /** Null: membership alone; left out, the route acts on no single project. */
      permission?: PermissionFlag | null;
      project?: ProjectSource;
      /** `other` if left out (docs/api-rules.md#rate-limits). */
      rateLimit?: RateLimitCategoryName;
      whenBodySets?: BodyFieldRequirement;
    }
  | {
      /** Tool calls: key and rate limit only here; each body checked and counted as its route. */
      rulesPerOperation: (body: unknown) => boolean;
    };

export type AppApiRule =
  | {
      /** Null: membership alone. */
      permission: PermissionFlag | null;
      project?: ProjectSource;
      whenBodySets?: Omit<BodyFieldRequirement, 'scopes'>;
    }
  | { anySignedInUser: true }
  | { adminOnly: true };

export const ScopeMetadata = Reflector.createDecorator<Scope[]>();
export const PermissionMetadata = Reflector.createDecorator<PermissionRequirement>();
export const WhenBodySetsMetadata = Reflector.createDecorator<BodyFieldRequirement>();
export const RulesPerOperationMetadata = Reflector.createDecorator<(body: unknown) => boolean>();
export const AnySignedInUserMetadata = Reflector.createDecorator<true>();
export const AdminOnlyMetadata = Reflector.createDecorator<true>();

type RouteDecorator = ClassDecorator & MethodDecorator;

/** All of them are needed. */
export const RequireScope = (...scopes: Scope[]): RouteDecorator => ScopeMetadata(scopes);

/** Null: membership alone; the project's owner always passes. */
export const RequirePermission = (
  flag: PermissionFlag | null,
  source: ProjectSource = {},
): RouteDecorator => PermissionMetadata({ flag, source });

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

export const OpenRoute = (): RouteDecorator => SetMetadata(AUTH_KIND, 'public');

/** A field counts as set when present and neither null nor false. */
export function bodySetsAny(body: unknown, fields: readonly string[]): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return fields.some((f) => record[f] !== undefined && record[f] !== null && record[f] !== false);
}

/** Resolved and checked by PermissionGuard. */
export const CurrentProject = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ProjectAccess => {
    const access = ctx.switchToHttp().getRequest<HeraldRequest>().projectAccess;
    if (!access) throw new Error('CurrentProject used on a route that names no project permission');
    return access;
  },
);
