import { AppError } from '../errors/error-codes';
import { DEFAULT_PERMISSIONS, OWNER_PERMISSIONS, PERMISSION_MESSAGES } from './permissions';
import {
  assertMayManage,
  assertNotOwner,
  grantedFlags,
  TEAM_RULE_MESSAGES,
  TeamActor,
} from './team-rules';

const owner: TeamActor = { userId: 1, role: 'owner', permissions: OWNER_PERMISSIONS };
const teamEditor: TeamActor = {
  userId: 2,
  role: 'editor',
  permissions: { ...DEFAULT_PERMISSIONS.editor, can_manage_team: true },
};
const teamObserver: TeamActor = {
  userId: 3,
  role: 'observer',
  permissions: { ...DEFAULT_PERMISSIONS.observer, can_manage_team: true },
};
const observer = {
  userId: 9,
  role: 'observer' as const,
  permissions: DEFAULT_PERMISSIONS.observer,
};
const editor = { userId: 8, role: 'editor' as const, permissions: DEFAULT_PERMISSIONS.editor };

function breach(run: () => void): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('forbidden');
    return (error as AppError).message;
  }
  throw new Error('expected a 403 forbidden');
}

describe('D14 team rules', () => {
  it('lets the owner do anything', () => {
    expect(() =>
      assertMayManage(owner, editor, { role: 'observer', permissions: OWNER_PERMISSIONS }),
    ).not.toThrow();
  });

  it('needs can_manage_team with its D6 message', () => {
    const plain: TeamActor = { userId: 5, role: 'editor', permissions: DEFAULT_PERMISSIONS.editor };
    expect(breach(() => assertMayManage(plain, observer, null))).toBe(
      PERMISSION_MESSAGES.can_manage_team,
    );
  });

  it('lets an editor with can_manage_team add editors and observers with flags it holds', () => {
    expect(() =>
      assertMayManage(teamEditor, null, {
        role: 'editor',
        permissions: DEFAULT_PERMISSIONS.editor,
      }),
    ).not.toThrow();
    expect(() =>
      assertMayManage(teamEditor, null, {
        role: 'observer',
        permissions: DEFAULT_PERMISSIONS.observer,
      }),
    ).not.toThrow();
  });

  it('refuses to grant a flag the actor lacks', () => {
    const message = breach(() =>
      assertMayManage(teamEditor, null, {
        role: 'observer',
        permissions: { ...DEFAULT_PERMISSIONS.observer, can_manage_settings: true },
      }),
    );
    expect(message).toBe(`${TEAM_RULE_MESSAGES.flagNotHeld}: can_manage_settings`);
  });

  it('allows keeping a flag the actor lacks when it was already granted', () => {
    const target = {
      userId: 7,
      role: 'observer' as const,
      permissions: { ...DEFAULT_PERMISSIONS.observer, can_manage_settings: true },
    };
    expect(() =>
      assertMayManage(teamEditor, target, {
        role: 'observer',
        permissions: { ...target.permissions, can_view_analytics: false },
      }),
    ).not.toThrow();
  });

  it('refuses an observer acting on or creating an editor', () => {
    expect(breach(() => assertMayManage(teamObserver, editor, null))).toBe(
      TEAM_RULE_MESSAGES.roleAbove,
    );
    expect(
      breach(() =>
        assertMayManage(teamObserver, null, {
          role: 'editor',
          permissions: DEFAULT_PERMISSIONS.observer,
        }),
      ),
    ).toBe(TEAM_RULE_MESSAGES.roleAbove);
  });

  it('refuses changing oneself and touching the owner', () => {
    const self = { userId: 2, role: 'editor' as const, permissions: teamEditor.permissions };
    expect(breach(() => assertMayManage(teamEditor, self, null))).toBe(TEAM_RULE_MESSAGES.self);
    expect(breach(() => assertNotOwner(1, 1))).toBe(TEAM_RULE_MESSAGES.owner);
    expect(() => assertNotOwner(1, 2)).not.toThrow();
  });

  it('counts as granted only flags that were off before', () => {
    expect(grantedFlags(null, DEFAULT_PERMISSIONS.observer)).toEqual([
      'can_view_content',
      'can_view_analytics',
    ]);
    expect(grantedFlags(DEFAULT_PERMISSIONS.observer, DEFAULT_PERMISSIONS.observer)).toEqual([]);
  });
});
