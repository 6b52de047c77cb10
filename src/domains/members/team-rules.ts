import { AppError } from '../../http/errors/error-codes';
import {
  type MemberRole,
  PERMISSION_FLAGS,
  type PermissionFlag,
  type Permissions,
  type ProjectRole,
  ROLE_RANK,
} from '../../access/permissions';

/** Answered 403 forbidden; the frontend shows these messages as they are. */
export const TEAM_RULE_MESSAGES = {
  owner: 'Владельца проекта нельзя изменить или удалить',
  self: 'Нельзя изменить собственную роль или права',
  roleAbove: 'Нельзя управлять участниками с ролью выше вашей',
  flagNotHeld: 'Нельзя выдать право, которого нет у вас',
} as const;

export interface TeamActor {
  userId: number;
  role: ProjectRole;
  permissions: Permissions;
}

export interface MemberState {
  userId: number;
  role: MemberRole;
  permissions: Permissions;
}

function breach(message: string): AppError {
  return new AppError('forbidden', message);
}

function rank(role: ProjectRole): number {
  return role === 'owner' ? Number.POSITIVE_INFINITY : ROLE_RANK[role];
}

export function grantedFlags(before: Permissions | null, next: Permissions): PermissionFlag[] {
  return PERMISSION_FLAGS.filter((flag) => next[flag] && !(before?.[flag] ?? false));
}

/** "Within the actor's own role" (docs/api-rules.md#team-rules); `target` is null when adding. */
export function assertMayManage(
  actor: TeamActor,
  target: MemberState | null,
  next: { role: MemberRole; permissions: Permissions } | null,
): void {
  if (actor.role === 'owner') return;
  if (!actor.permissions.can_manage_team) throw AppError.forbidden('can_manage_team');
  if (target && target.userId === actor.userId) throw breach(TEAM_RULE_MESSAGES.self);
  const own = rank(actor.role);
  if (target && rank(target.role) > own) throw breach(TEAM_RULE_MESSAGES.roleAbove);
  if (!next) return;
  if (rank(next.role) > own) throw breach(TEAM_RULE_MESSAGES.roleAbove);
  const notHeld = grantedFlags(target?.permissions ?? null, next.permissions).filter(
    (flag) => !actor.permissions[flag],
  );
  if (notHeld.length > 0) {
    throw breach(`${TEAM_RULE_MESSAGES.flagNotHeld}: ${notHeld.join(', ')}`);
  }
}

export function assertNotOwner(ownerId: number, targetUserId: number): void {
  if (ownerId === targetUserId) throw breach(TEAM_RULE_MESSAGES.owner);
}
