/** docs/api-rules.md#roles-and-member-flags, in their usual order. */
export const PERMISSION_FLAGS = [
  'can_view_content',
  'can_edit_content',
  'can_publish',
  'can_use_ai',
  'can_manage_templates',
  'can_view_analytics',
  'can_manage_accounts',
  'can_manage_team',
  'can_manage_settings',
] as const;

export type PermissionFlag = (typeof PERMISSION_FLAGS)[number];
export type Permissions = Record<PermissionFlag, boolean>;

export type MemberRole = 'editor' | 'observer';
export type ProjectRole = 'owner' | MemberRole;
export const MEMBER_ROLES: readonly MemberRole[] = ['editor', 'observer'];

export const ROLE_RANK: Record<MemberRole, number> = { editor: 2, observer: 1 };

export const ROLE_TITLES: Record<MemberRole, string> = {
  editor: 'Редактор',
  observer: 'Наблюдатель',
};

export const PERMISSION_MESSAGES: Record<PermissionFlag, string> = {
  can_view_content: 'Недостаточно прав для просмотра контента',
  can_edit_content: 'Недостаточно прав для редактирования контента',
  can_publish: 'Недостаточно прав для публикации',
  can_use_ai: 'Недостаточно прав для использования ИИ',
  can_manage_templates: 'Недостаточно прав для управления шаблонами',
  can_view_analytics: 'Недостаточно прав для просмотра аналитики',
  can_manage_accounts: 'Недостаточно прав для управления аккаунтами',
  can_manage_team: 'Недостаточно прав для управления командой',
  can_manage_settings: 'Недостаточно прав для изменения настроек проекта',
};

function permissions(on: readonly PermissionFlag[]): Permissions {
  return Object.fromEntries(
    PERMISSION_FLAGS.map((flag) => [flag, on.includes(flag)]),
  ) as Permissions;
}

export const DEFAULT_PERMISSIONS: Record<MemberRole, Permissions> = {
  editor: permissions([
    'can_view_content',
    'can_edit_content',
    'can_publish',
    'can_use_ai',
    'can_manage_templates',
    'can_view_analytics',
  ]),
  observer: permissions(['can_view_content', 'can_view_analytics']),
};

export const OWNER_PERMISSIONS: Permissions = permissions(PERMISSION_FLAGS);
