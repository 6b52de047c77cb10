import { applyDecorators, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import type { Scope } from './scopes';
import type { PermissionFlag } from './permissions';

export type AuthKind = 'api_key' | 'session' | 'public';
export const AUTH_KIND = 'herald:auth-kind';

export const PUBLIC_API_PREFIX = 'api/public/v1';
export const PUBLIC_API_TAG = 'Public API';
export const APP_API_TAG = 'Application API';

/**
 * A public API controller: Bearer API key, scopes, rate limits
 * (docs/api-rules.md#api-keys-and-scopes).
 */
export const ApiKeyAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    SetMetadata(AUTH_KIND, 'api_key'),
    ApiBearerAuth('api-key'),
    ApiTags(PUBLIC_API_TAG),
  );

/** An application API controller: Bearer session token. */
export const SessionAuth = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    SetMetadata(AUTH_KIND, 'session'),
    ApiBearerAuth('session'),
    ApiTags(APP_API_TAG),
  );

/** No authentication at all (health, docs, login). */
export const Public = (): ClassDecorator & MethodDecorator => SetMetadata(AUTH_KIND, 'public');

/** The scopes an API key needs for this route (all of them). */
export const ScopeMetadata = Reflector.createDecorator<Scope[]>();
export const RequireScope = (...scopes: Scope[]) => ScopeMetadata(scopes);

/** An application route open to any signed-in user, with no project permission to check. */
export const AnySignedInUser = Reflector.createDecorator<void, true>({ transform: () => true });

/**
 * A public route whose body names an operation of another route (the MCP endpoint's tool calls):
 * the key is checked for the request, and a body for which `carriesOperation` holds is then
 * checked only as its operation, with that route's rules (RouteRulesRunner): counted in that
 * route's category, not twice. Any other body (a protocol message, an unreadable one) needs no
 * scope or project and is counted in the route's own category.
 */
export const RulesPerOperation = Reflector.createDecorator<(body: unknown) => boolean>();

/** An application route for administrators only (creating API keys, a beta). */
export const AdminOnly = Reflector.createDecorator<void, true>({ transform: () => true });

/** Extra requirements a route has when its JSON body sets one of `fields` (e.g. `scheduled_at`). */
export interface BodyFieldRequirement {
  fields: string[];
  /** Checked by ScopeGuard with the route's own scopes (before the project). */
  scopes?: Scope[];
  /** Checked by PermissionGuard after the route's own flag (before validation). */
  flag?: PermissionFlag;
}

/**
 * `@WhenBodySets({ fields: ['scheduled_at', 'publish_now'], scopes: ['posts:publish'], flag:
 * 'can_publish' })`: a create that also schedules or publishes needs the publish rights.
 */
export const WhenBodySets = Reflector.createDecorator<BodyFieldRequirement>();

/** A field counts as set when present and neither null nor false. */
export function bodySetsAny(body: unknown, fields: readonly string[]): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const record = body as Record<string, unknown>;
  return fields.some((f) => record[f] !== undefined && record[f] !== null && record[f] !== false);
}
