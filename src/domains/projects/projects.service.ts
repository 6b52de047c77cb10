import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
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

interface AccessRow {
  id: number;
  name: string;
  timezone: string;
  owner_id: number;
  appearance: string | null;
  wallpaper: string | null;
  created_at: string;
  role: MemberRole | null;
  can_view_content: boolean | null;
  can_edit_content: boolean | null;
  can_publish: boolean | null;
  can_use_ai: boolean | null;
  can_manage_templates: boolean | null;
  can_view_analytics: boolean | null;
  can_manage_accounts: boolean | null;
  can_manage_team: boolean | null;
  can_manage_settings: boolean | null;
}

const ACCESS_SELECT = `
  SELECT p.id, p.name, p.timezone, p.owner_id, p.appearance, p.wallpaper, p.created_at, m.role,
         ${PERMISSION_FLAGS.map((flag) => `m.${flag}`).join(', ')}
    FROM projects p
    LEFT JOIN project_members m ON m.project_id = p.id AND m.user_id = $1`;

// The user's projects found through the owner and member indexes: an OR across the two tables
// can only be answered by reading every project.
const LIST_ACCESSIBLE = new Statement(
  `${ACCESS_SELECT}
    WHERE p.id IN (SELECT id FROM projects WHERE owner_id = $1
                   UNION ALL
                   SELECT project_id FROM project_members WHERE user_id = $1)
    ORDER BY p.id`,
);
const FIND_ACCESS = new Statement(
  `${ACCESS_SELECT} WHERE p.id = $2 AND (p.owner_id = $1 OR m.user_id IS NOT NULL)`,
);

export interface ProjectSettings {
  name?: string;
  timezone?: string;
  appearance?: string | null;
  wallpaper?: string | null;
}

@Injectable()
export class ProjectsService {
  constructor(
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    private readonly cache: ProjectAccessCache,
  ) {}

  /** Every project the user owns or is a member of, oldest first. */
  async listAccessible(userId: number): Promise<ProjectAccess[]> {
    const rows = await rowsOf<AccessRow>(this.projects.manager, LIST_ACCESSIBLE, [userId]);
    return rows.map((row) => toAccess(row, userId));
  }

  /**
   * The user's access to one project, or null when the project is missing or not theirs; from
   * this process's memory when it may be trusted (project-access-cache.ts). Frozen.
   */
  async findAccess(userId: number, projectId: number): Promise<ProjectAccess | null> {
    const remembered = this.cache.get(userId, projectId);
    if (remembered) return remembered;
    const ticket = this.cache.ticket();
    const access = await this.readAccess(userId, projectId);
    if (access) this.cache.put(ticket, userId, access);
    return access;
  }

  /** Announced after every change of a project's row or members (ProjectAccessCache). */
  changed(projectId: number): Promise<void> {
    return this.cache.changed(projectId);
  }

  /** The user's access as the database has it now. */
  private async readAccess(userId: number, projectId: number): Promise<ProjectAccess | null> {
    const [row] = await rowsOf<AccessRow>(this.projects.manager, FIND_ACCESS, [userId, projectId]);
    return row ? toAccess(row, userId) : null;
  }

  async create(ownerId: number, name: string, timezone: string): Promise<ProjectAccess> {
    const saved = await this.projects.save(this.projects.create({ ownerId, name, timezone }));
    const access = await this.readAccess(ownerId, saved.id);
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
      await this.projects.update({ id: access.project.id }, changes);
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

/** An item of the public project list. */
export function toPublicProject(access: ProjectAccess) {
  return {
    id: access.project.id,
    name: access.project.name,
    timezone: access.project.timezone,
    created_at: formatTimestamp(access.project.createdAt),
    is_owner: access.role === 'owner',
  };
}

/** The application API's view, with the caller's role and all nine flags. */
export function toAppProject(access: ProjectAccess) {
  return {
    ...toPublicProject(access),
    appearance: access.project.appearance,
    wallpaper: access.project.wallpaper,
    role: access.role,
    my_permissions: access.permissions,
  };
}
