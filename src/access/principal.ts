import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { ApiKeyMode } from '../domains/api-keys/api-key-format';
import type { Scope } from './scopes';
import type { BodyRequest } from '../http/input/json-body';
import type { ProjectAccess } from './project-access';

export interface AuthUser {
  id: number;
  email: string;
  name: string;
  isAdmin: boolean;
  isOperator: boolean;
}

/** Who is calling: a user, through an API key (public API) or a session (application API). */
export interface Principal {
  kind: 'api_key' | 'session';
  user: AuthUser;
  apiKey?: { id: number; publicId: string; scopes: readonly Scope[]; mode: ApiKeyMode };
  sessionId?: number;
}

/** What the guards learn about a request, handed to controllers through param decorators. */
export interface HeraldRequest extends BodyRequest {
  principal?: Principal;
  projectAccess?: ProjectAccess;
}

/** The authenticated caller. Guards guarantee it is there on every non-public route. */
export const Principal = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Principal => {
    const principal = ctx.switchToHttp().getRequest<HeraldRequest>().principal;
    if (!principal) throw new Error('Principal requested on a route without authentication');
    return principal;
  },
);
