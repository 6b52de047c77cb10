import { Injectable } from '@nestjs/common';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import {
  MemberRole,
  OWNER_PERMISSIONS,
  Permissions,
  PERMISSION_FLAGS,
} from '../../access/permissions';
import { Project } from './project.entity';
import { ProjectAccess } from '../../access/project-access';
import { ProjectAccessCache } from '../../access/project-access-cache';
import { type AccessRow, ProjectsRepository } from './projects.repository';

export interface ProjectSettings {
  name?: string;
  timezone?: string;
  appearance?: string | null;
  wallpaper?: string | null;
}

@Injectable()
export class ProjectsService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly cache: ProjectAccessCache,
  ) {}

  async listAccessible(userId: number): Promise<ProjectAccess[]> {
    const rows = await this.projects.listAccessible(userId);
    return rows.map((row) => toAccess(row, userId));
  }

  /** Null when missing or not theirs; cached when trustworthy (project-access-cache.ts). Frozen. */
  async findAccess(userId: number, projectId: number): Promise<ProjectAccess | null> {
    const remembered = this.cache.get(userId, projectId);
    if (remembered) return remembered;
    const version = this.cache.version();
    const access = await this.readAccess(userId, projectId);
    if (access) this.cache.put(version, userId, access);
    return access;
  }

  /** After every change of a project's row or members. */
  changed(projectId: number): Promise<void> {
    return this.cache.changed(projectId);
  }

  private async readAccess(userId: number, projectId: number): Promise<ProjectAccess | null> {
    const row = await this.projects.findAccess(userId, projectId);
    return row ? toAccess(row, userId) : null;
  }

  async create(ownerId: number, name: string, timezone: string): Promise<ProjectAccess> {
    const id = await this.projects.insert(ownerId, name, timezone);
    const access = await this.readAccess(ownerId, id);
    if (!access) throw new Error('Created project is not accessible to its owner');
    return access;
  }

  async update(
    access: ProjectAccess,
    userId: number,
    settings: ProjectSettings,
  ): Promise<ProjectAccess> {
    const changes = Object.fromEntries(
      Object.entries(settings).filter(([, value]) => value !== undefined),
    );
    if (Object.keys(changes).length > 0) {
      await this.projects.update(access.project.id, changes);
      await this.changed(access.project.id);
    }
    return (await this.readAccess(userId, access.project.id)) ?? access;
  }
}

function toAccess(row: AccessRow, userId: number): ProjectAccess {
  const project = Object.assign(new Project(), {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    ownerId: row.owner_id,
    appearance: row.appearance,
    wallpaper: row.wallpaper,
    createdAt: row.created_at,
  });
  if (row.owner_id === userId)
    return { project, role: 'owner', permissions: { ...OWNER_PERMISSIONS }, test: false };
  const permissions = Object.fromEntries(
    PERMISSION_FLAGS.map((flag) => [flag, row[flag] === true]),
  ) as Permissions;
  return { project, role: row.role as MemberRole, permissions, test: false };
}

export function toPublicProject(access: ProjectAccess) {
  return {
    id: access.project.id,
    name: access.project.name,
    timezone: access.project.timezone,
    created_at: formatTimestamp(access.project.createdAt),
    is_owner: access.role === 'owner',
  };
}

export function toAppProject(access: ProjectAccess) {
  return {
    ...toPublicProject(access),
    appearance: access.project.appearance,
    wallpaper: access.project.wallpaper,
    role: access.role,
    my_permissions: access.permissions,
  };
}
