import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { HeraldRequest } from './principal';
import type { ProjectAccess } from './project-access';
import type { PermissionFlag } from './permissions';

/**
 * Where a route's project comes from. By default: path `:projectId`, then query `project_id`,
 * then body `project_id`. A `resource` names a registered resolver (account, post, template)
 * that maps the path parameter to the project it belongs to.
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

export const PermissionMetadata = Reflector.createDecorator<PermissionRequirement>();

/** The member flag the route needs in its project (null: membership alone); the owner always passes. */
export const RequirePermission = (flag: PermissionFlag | null, source: ProjectSource = {}) =>
  PermissionMetadata({ flag, source });

/** The project the route acts on, resolved and checked by PermissionGuard. */
export const CurrentProject = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): ProjectAccess => {
    const access = ctx.switchToHttp().getRequest<HeraldRequest>().projectAccess;
    if (!access) throw new Error('CurrentProject used on a route without @RequirePermission');
    return access;
  },
);
