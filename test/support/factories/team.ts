import { PERMISSION_FLAGS, type PermissionFlag } from '../../../src/access/permissions';
import { SignedInUser, TestProject } from './factories';
import { TestApp } from '../test-app';

export type FlagSet = Partial<Record<PermissionFlag, boolean>>;

/** Exactly the named flags on, all others off. */
export function onlyFlags(...on: PermissionFlag[]): Record<PermissionFlag, boolean> {
  return Object.fromEntries(PERMISSION_FLAGS.map((f) => [f, on.includes(f)])) as Record<
    PermissionFlag,
    boolean
  >;
}

/** Every flag on except the named ones. */
export function allFlagsBut(...off: PermissionFlag[]): Record<PermissionFlag, boolean> {
  return Object.fromEntries(PERMISSION_FLAGS.map((f) => [f, !off.includes(f)])) as Record<
    PermissionFlag,
    boolean
  >;
}

/** Adds `user` to the project through the members API, as the project's owner. */
export async function addMember(
  t: TestApp,
  owner: SignedInUser,
  project: TestProject,
  user: SignedInUser,
  role: 'editor' | 'observer',
  permissions?: FlagSet,
): Promise<void> {
  await t.http
    .post(`/api/projects/${project.id}/members`)
    .set('Authorization', owner.auth)
    .send({ email: user.email, role, ...(permissions ? { permissions } : {}) })
    .expect(201);
}

/** The member's stored row, flags by their API names; null when not a member. */
export async function memberRow(
  t: TestApp,
  projectId: number,
  userId: number,
): Promise<({ role: string } & Record<PermissionFlag, boolean>) | null> {
  const { rows } = await t.db.query(
    `SELECT role, ${PERMISSION_FLAGS.join(', ')} FROM project_members WHERE project_id = $1 AND user_id = $2`,
    [projectId, userId],
  );
  return rows[0] ?? null;
}
