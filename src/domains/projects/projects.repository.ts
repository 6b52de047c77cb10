import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { type MemberRole, PERMISSION_FLAGS } from '../../access/permissions';
import { rowsOf, Statement } from '../../infrastructure/database/prepared';
import { Project } from './project.entity';

/** The member columns are null for its owner. */
export interface AccessRow {
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

// Through the owner and member indexes: an OR across the two tables would read every project.
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

export type ProjectColumns = Partial<
  Pick<Project, 'name' | 'timezone' | 'appearance' | 'wallpaper'>
>;

/** Each read scoped by the user who owns or is a member of the project. */
@Injectable()
export class ProjectsRepository {
  constructor(@InjectRepository(Project) private readonly projects: Repository<Project>) {}

  listAccessible(userId: number): Promise<AccessRow[]> {
    return rowsOf<AccessRow>(this.projects.manager, LIST_ACCESSIBLE, [userId]);
  }

  /** Null when it is missing or not theirs. */
  async findAccess(userId: number, projectId: number): Promise<AccessRow | null> {
    const [row] = await rowsOf<AccessRow>(this.projects.manager, FIND_ACCESS, [userId, projectId]);
    return row ?? null;
  }

  async insert(ownerId: number, name: string, timezone: string): Promise<number> {
    return (await this.projects.save(this.projects.create({ ownerId, name, timezone }))).id;
  }

  async update(projectId: number, columns: ProjectColumns): Promise<void> {
    await this.projects.update({ id: projectId }, columns);
  }
}
