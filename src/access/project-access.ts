import type { Permissions, ProjectRole } from './permissions';
import type { Project } from '../domains/projects/project.entity';

/** The caller's standing in one project, as PermissionGuard found it. */
export interface ProjectAccess {
  project: Project;
  role: ProjectRole;
  permissions: Permissions;
  /** A test key sees and makes test posts only; sessions and live keys work with live posts. */
  test: boolean;
}
