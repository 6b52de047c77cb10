import { AppError } from '../../http/errors/error-codes';
import {
  DEFAULT_PERMISSIONS,
  OWNER_PERMISSIONS,
  PERMISSION_MESSAGES,
} from '../../access/permissions';
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

describe('team rules', () => {
  it('lets the owner do anything', () => {
    expect(() =>
      assertMayManage(owner, editor, { role: 'observer', permissions: OWNER_PERMISSIONS }),
    ).not.toThrow();
  });

  it('needs can_manage_team with its message', () => {
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

  const teamEditorFull: TeamActor = { ...teamEditor, permissions: { ...OWNER_PERMISSIONS } };

  // Every branch of assertMayManage, each as the one rule that decides.
  it.each([
    ['the owner removing an editor', owner, editor, null],
    [
      'the owner adding with every flag',
      owner,
      null,
      { role: 'editor', permissions: OWNER_PERMISSIONS },
    ],
    ['an editor removing an observer', teamEditor, observer, null],
    ['an editor removing an editor (same role)', teamEditor, editor, null],
    ['an observer removing an observer (same role)', teamObserver, observer, null],
    [
      'an editor promoting an observer',
      teamEditor,
      observer,
      { role: 'editor', permissions: DEFAULT_PERMISSIONS.observer },
    ],
    [
      'an editor demoting an editor',
      teamEditor,
      editor,
      { role: 'observer', permissions: DEFAULT_PERMISSIONS.observer },
    ],
    [
      'an observer adding an observer',
      teamObserver,
      null,
      { role: 'observer', permissions: DEFAULT_PERMISSIONS.observer },
    ],
    [
      'an observer granting can_manage_team it holds',
      teamObserver,
      observer,
      { role: 'observer', permissions: { ...DEFAULT_PERMISSIONS.observer, can_manage_team: true } },
    ],
    [
      'a manager holding every flag granting them all',
      teamEditorFull,
      null,
      { role: 'editor', permissions: OWNER_PERMISSIONS },
    ],
    [
      'an editor taking flags away',
      teamEditor,
      editor,
      { role: 'editor', permissions: DEFAULT_PERMISSIONS.observer },
    ],
  ] as const)('allows %s', (_label, actor, target, next) => {
    expect(() => assertMayManage(actor, target, next)).not.toThrow();
  });

  it.each([
    [
      'without can_manage_team, even on an observer',
      { ...teamEditor, permissions: DEFAULT_PERMISSIONS.editor },
      observer,
      null,
      PERMISSION_MESSAGES.can_manage_team,
    ],
    [
      'without can_manage_team, even when adding',
      { ...teamObserver, permissions: DEFAULT_PERMISSIONS.observer },
      null,
      { role: 'observer', permissions: DEFAULT_PERMISSIONS.observer },
      PERMISSION_MESSAGES.can_manage_team,
    ],
    [
      'changing oneself, even within the role',
      teamEditor,
      { ...editor, userId: teamEditor.userId },
      { role: 'editor', permissions: DEFAULT_PERMISSIONS.editor },
      TEAM_RULE_MESSAGES.self,
    ],
    [
      'an observer demoting an editor',
      teamObserver,
      editor,
      { role: 'observer', permissions: DEFAULT_PERMISSIONS.observer },
      TEAM_RULE_MESSAGES.roleAbove,
    ],
    [
      'an observer promoting an observer',
      teamObserver,
      observer,
      { role: 'editor', permissions: DEFAULT_PERMISSIONS.observer },
      TEAM_RULE_MESSAGES.roleAbove,
    ],
    [
      'an observer adding an editor',
      teamObserver,
      null,
      { role: 'editor', permissions: DEFAULT_PERMISSIONS.observer },
      TEAM_RULE_MESSAGES.roleAbove,
    ],
    [
      'granting a flag not held to an existing member',
      teamEditor,
      observer,
      {
        role: 'observer',
        permissions: { ...DEFAULT_PERMISSIONS.observer, can_manage_accounts: true },
      },
      `${TEAM_RULE_MESSAGES.flagNotHeld}: can_manage_accounts`,
    ],
    [
      'granting two flags not held',
      teamObserver,
      null,
      {
        role: 'observer',
        permissions: {
          ...DEFAULT_PERMISSIONS.observer,
          can_publish: true,
          can_manage_settings: true,
        },
      },
      `${TEAM_RULE_MESSAGES.flagNotHeld}: can_publish, can_manage_settings`,
    ],
  ] as const)('refuses %s', (_label, actor, target, next, message) => {
    expect(breach(() => assertMayManage(actor, target, next))).toBe(message);
  });

  it('counts a flag as granted when it was off or absent before, never when it is turned off', () => {
    const before = { ...DEFAULT_PERMISSIONS.editor, can_use_ai: false };
    const next = { ...DEFAULT_PERMISSIONS.editor, can_publish: false };
    expect(grantedFlags(before, next)).toEqual(['can_use_ai']);
    expect(grantedFlags(null, OWNER_PERMISSIONS)).toHaveLength(9);
    expect(grantedFlags(OWNER_PERMISSIONS, OWNER_PERMISSIONS)).toEqual([]);
  });

  it('answers every breach with 403 forbidden', () => {
    for (const run of [
      () => assertNotOwner(5, 5),
      () => assertMayManage(teamObserver, editor, null),
      () => assertMayManage(teamEditor, { ...editor, userId: 2 }, null),
    ]) {
      expect(() => run()).toThrow(AppError);
      try {
        run();
      } catch (error) {
        expect((error as AppError).status).toBe(403);
      }
    }
  });

  it('never refuses the owner, whatever the target', () => {
    const ownId = { userId: owner.userId, role: 'editor' as const, permissions: OWNER_PERMISSIONS };
    expect(() => assertMayManage(owner, ownId, null)).not.toThrow();
  });

  it('leaves every other user id to the other rules', () => {
    expect(() => assertNotOwner(2_147_483_647, 2_147_483_646)).not.toThrow();
  });
});
