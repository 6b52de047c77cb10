import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { BodyFieldRequirement, bodySetsAny, PermissionRequirement } from './decorators';
import type { HeraldRequest } from './principal';
import { ProjectLookups } from './project-lookups';
import { routeRules, undeclaredRoute } from './route-metadata';
import { AppError } from '../http/errors/error-codes';
import { parseId } from '../http/errors/parse-id.pipe';
import { validationFailed } from '../http/errors/validation';
import { ProjectsService } from '../domains/projects/projects.service';

/** Owner passes, else the member's flag (403); not a member or no such project: 404. */
@Injectable()
export class PermissionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly projects: ProjectsService,
    private readonly lookups: ProjectLookups,
  ) {}

  /** Synchronous when the route names no project permission: Nest awaits only a promise. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const rules = routeRules(this.reflector, context);
    if (rules.authKind === 'public' || rules.rulesPerOperation !== undefined) return true;
    const requirement = rules.permission;
    if (!requirement) {
      const open = rules.anySignedInUser || rules.adminOnly;
      if (rules.authKind === 'session' && !open) throw undeclaredRoute();
      return true;
    }
    return this.checkProject(
      context.switchToHttp().getRequest<HeraldRequest>(),
      requirement,
      rules.whenBodySets,
    );
  }

  private async checkProject(
    request: HeraldRequest,
    requirement: PermissionRequirement,
    extra: BodyFieldRequirement | undefined,
  ): Promise<boolean> {
    const principal = request.principal;
    if (!principal) throw AppError.unauthorized();

    const projectId = await this.resolveProjectId(request, requirement);
    const access =
      projectId === null ? null : await this.projects.findAccess(principal.user.id, projectId);
    if (!access) throw this.notFound(requirement);
    if (requirement.flag && !access.permissions[requirement.flag])
      throw AppError.forbidden(requirement.flag);
    if (extra?.flag && bodySetsAny(request.body, extra.fields) && !access.permissions[extra.flag])
      throw AppError.forbidden(extra.flag);
    request.projectAccess = principal.apiKey?.mode === 'test' ? { ...access, test: true } : access;
    return true;
  }

  private async resolveProjectId(
    request: HeraldRequest,
    requirement: PermissionRequirement,
  ): Promise<number | null> {
    const { source } = requirement;
    if (source.resource) {
      const id = parseId(request.params[source.param ?? 'id']);
      return id === null ? null : this.lookups.get(source.resource).lookup.projectOf(id);
    }
    if (source.param) return parseId(request.params[source.param]);
    if (request.params.projectId !== undefined) return parseId(request.params.projectId);
    const fromQuery = (request.query as Record<string, unknown>).project_id;
    if (fromQuery !== undefined) return parseId(fromQuery);
    // A body that could not be read names no project: its own error is the answer.
    if (request.bodyParseError) throw request.bodyParseError;
    const fromBody = (request.body as Record<string, unknown> | undefined)?.project_id;
    if (fromBody === undefined) {
      throw validationFailed([{ field: 'project_id', message: 'project_id is required' }]);
    }
    return parseId(fromBody);
  }

  private notFound(requirement: PermissionRequirement): AppError {
    const { resource } = requirement.source;
    if (!resource) return AppError.projectNotFound();
    const { notFound } = this.lookups.get(resource);
    return new AppError(notFound.code, notFound.message);
  }
}
