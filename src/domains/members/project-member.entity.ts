import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, type DbTimestamp } from '../../infrastructure/database/timestamps';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';
import { type MemberRole, PERMISSION_FLAGS, type Permissions } from '../../access/permissions';

/** A team member of a project; the owner is `projects.owner_id` and never a row here. */
@Entity('project_members')
export class ProjectMember {
  @PrimaryColumn({ type: 'int' })
  projectId!: number;

  @Index()
  @PrimaryColumn({ type: 'int' })
  userId!: number;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn()
  project?: Project;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn()
  user?: User;

  @Column({ type: 'varchar', length: 16 })
  role!: MemberRole;

  @Column({ type: 'boolean' }) canViewContent!: boolean;
  @Column({ type: 'boolean' }) canEditContent!: boolean;
  @Column({ type: 'boolean' }) canPublish!: boolean;
  @Column({ type: 'boolean' }) canUseAi!: boolean;
  @Column({ type: 'boolean' }) canManageTemplates!: boolean;
  @Column({ type: 'boolean' }) canViewAnalytics!: boolean;
  @Column({ type: 'boolean' }) canManageAccounts!: boolean;
  @Column({ type: 'boolean' }) canManageTeam!: boolean;
  @Column({ type: 'boolean' }) canManageSettings!: boolean;

  @CreatedAtColumn()
  createdAt!: DbTimestamp;
}

type FlagProperty = Exclude<
  keyof ProjectMember,
  'projectId' | 'userId' | 'project' | 'user' | 'role' | 'createdAt'
>;

const FLAG_PROPERTIES: Record<(typeof PERMISSION_FLAGS)[number], FlagProperty> = {
  can_view_content: 'canViewContent',
  can_edit_content: 'canEditContent',
  can_publish: 'canPublish',
  can_use_ai: 'canUseAi',
  can_manage_templates: 'canManageTemplates',
  can_view_analytics: 'canViewAnalytics',
  can_manage_accounts: 'canManageAccounts',
  can_manage_team: 'canManageTeam',
  can_manage_settings: 'canManageSettings',
};

export function memberPermissions(member: ProjectMember): Permissions {
  return Object.fromEntries(
    PERMISSION_FLAGS.map((flag) => [flag, member[FLAG_PROPERTIES[flag]]]),
  ) as Permissions;
}

export function applyPermissions(member: ProjectMember, permissions: Partial<Permissions>): void {
  for (const flag of PERMISSION_FLAGS) {
    const value = permissions[flag];
    if (value !== undefined) member[FLAG_PROPERTIES[flag]] = value;
  }
}
