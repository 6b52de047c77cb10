import { Injectable } from '@nestjs/common';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { isUniqueViolation } from '../../infrastructure/database/query-errors';
import { AppError } from '../../http/errors/error-codes';
import type { ProjectAccess } from '../../access/project-access';
import { ProjectsService } from '../projects/projects.service';
import { normalizeEmail } from '../users/users.service';
import { MemberDto, MemberListDto, PermissionsInputDto } from './member.dto';
import {
  DEFAULT_PERMISSIONS,
  type MemberRole,
  PERMISSION_FLAGS,
  type Permissions,
  ROLE_TITLES,
} from '../../access/permissions';
import { MembersRepository } from './members.repository';
import { applyPermissions, memberPermissions, ProjectMember } from './project-member.entity';
import { assertMayManage, assertNotOwner, type TeamActor } from './team-rules';

/** docs/api-rules.md#team-rules; each method takes the access PermissionGuard found. */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly projects: ProjectsService,
  ) {}

  /** Never the owner, who is not a member; oldest first. */
  async list(projectId: number): Promise<MemberListDto> {
    const rows = await this.members.list(projectId);
    const items = rows.map(toMemberDto);
    return { items, count: items.length };
  }

  /** The role's default flags, overridden by `overrides`. */
  async add(
    access: ProjectAccess,
    actorId: number,
    email: string,
    role: MemberRole,
    overrides: PermissionsInputDto = {},
  ): Promise<MemberDto> {
    const projectId = access.project.id;
    const permissions = withOverrides(DEFAULT_PERMISSIONS[role], overrides);
    assertMayManage(actorOf(access, actorId), null, { role, permissions });
    const user = await this.members.findUserByEmail(normalizeEmail(email));
    if (!user) throw new AppError('user_not_found', 'No user with this email');
    if (user.id === access.project.ownerId) {
      throw new AppError('member_exists', 'This user owns the project');
    }
    let member: ProjectMember;
    try {
      member = await this.members.insert(projectId, user, role, permissions);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new AppError('member_exists', 'This user is already a member of the project');
      }
      throw error;
    }
    // Nothing to announce: no process remembers that a user has no access (ProjectAccessCache).
    return toMemberDto(member);
  }

  /** A new role resets the flags to its defaults; then the given flags apply. */
  async update(
    access: ProjectAccess,
    actorId: number,
    userId: number,
    change: { role?: MemberRole; permissions?: PermissionsInputDto },
  ): Promise<MemberDto> {
    const projectId = access.project.id;
    assertNotOwner(access.project.ownerId, userId);
    const member = await this.find(projectId, userId);
    const before = memberPermissions(member);
    const role = change.role ?? member.role;
    const base = change.role && change.role !== member.role ? DEFAULT_PERMISSIONS[role] : before;
    const permissions = withOverrides(base, change.permissions ?? {});
    assertMayManage(
      actorOf(access, actorId),
      { userId, role: member.role, permissions: before },
      { role, permissions },
    );
    member.role = role;
    applyPermissions(member, permissions);
    await this.members.save(member);
    await this.projects.changed(projectId);
    return toMemberDto(member);
  }

  /** Any member may remove themselves; others need the team rules' rights. */
  async remove(access: ProjectAccess, actorId: number, userId: number): Promise<void> {
    const projectId = access.project.id;
    assertNotOwner(access.project.ownerId, userId);
    const leaving = userId === actorId;
    if (!leaving && access.role !== 'owner' && !access.permissions.can_manage_team) {
      throw AppError.forbidden('can_manage_team');
    }
    const member = await this.find(projectId, userId);
    if (!leaving) {
      assertMayManage(
        actorOf(access, actorId),
        { userId, role: member.role, permissions: memberPermissions(member) },
        null,
      );
    }
    await this.members.remove(projectId, userId);
    await this.projects.changed(projectId);
  }

  private async find(projectId: number, userId: number): Promise<ProjectMember> {
    const member = await this.members.find(projectId, userId);
    if (!member) throw new AppError('member_not_found', 'Member not found');
    return member;
  }
}

function actorOf(access: ProjectAccess, userId: number): TeamActor {
  return { userId, role: access.role, permissions: access.permissions };
}

function withOverrides(base: Permissions, overrides: PermissionsInputDto): Permissions {
  const result = { ...base };
  for (const flag of PERMISSION_FLAGS) {
    const value = overrides[flag];
    if (value !== undefined) result[flag] = value;
  }
  return result;
}

export function toMemberDto(member: ProjectMember): MemberDto {
  if (!member.user) throw new Error('Member loaded without its user');
  return {
    user_id: member.userId,
    email: member.user.email,
    name: member.user.name,
    role: member.role,
    role_title: ROLE_TITLES[member.role],
    permissions: memberPermissions(member),
    created_at: formatTimestamp(member.createdAt),
  };
}
