import type { Permissions, ProjectRole } from '../members/permissions';
import type { Project } from './project.entity';

/** The caller's standing in one project, as PermissionGuard found it. */
export interface ProjectAccess {
  project: Project;
  role: ProjectRole;
  permissions: Permissions;
}
