import type { Test } from 'supertest';

import { DEFAULT_PERMISSIONS, type PermissionFlag } from '../../../src/access/permissions';

import { type World, rows, postRow } from './app-routes';
/**
 * The public API's one-post routes × callers: the scope and the member flags of the API key's user,
 * in the order of checks (docs/api-rules.md#order-of-checks). Every caller is an administrator, so
 * it may hold keys.
 */
export interface PublicRouteCase {
  name: string;
  scopes: string[];
  flags: PermissionFlag[];
  status: number;
  request: (w: World, key: string, postId: number) => Test;
  /** The MCP tool that runs this route, and its arguments for the same request. */
  tool: [name: string, args: (w: World, postId: number) => Record<string, unknown>];
  effect: (w: World, postId: number, body: { id?: number }) => Promise<void>;
}

export type PublicActor =
  | { kind: 'owner' | 'editor' | 'observer' | 'non-member' | 'no key' }
  | { kind: 'on' | 'off'; flag: PermissionFlag }
  | { kind: 'without scope' };

export const PUBLIC_FLAGS: PermissionFlag[] = [
  'can_view_content',
  'can_edit_content',
  'can_publish',
];
export const PUBLIC_ACTORS: PublicActor[] = [
  { kind: 'owner' },
  { kind: 'editor' },
  { kind: 'observer' },
  ...PUBLIC_FLAGS.map((flag): PublicActor => ({ kind: 'on', flag })),
  ...PUBLIC_FLAGS.map((flag): PublicActor => ({ kind: 'off', flag })),
  { kind: 'without scope' },
  { kind: 'non-member' },
  { kind: 'no key' },
];

export function publicActorName(actor: PublicActor): string {
  return 'flag' in actor ? `only ${actor.flag} ${actor.kind}` : actor.kind;
}

export const PUBLIC_ROUTES: PublicRouteCase[] = [
  {
    name: 'GET /api/public/v1/projects/{project_id}/posts/{post_id}',
    scopes: ['posts:read'],
    flags: ['can_view_content'],
    status: 200,
    request: (w, key, id) =>
      w.t.http
        .get(`/api/public/v1/projects/${w.project.id}/posts/${id}`)
        .set('Authorization', `Bearer ${key}`),
    tool: ['get_post', (w, id) => ({ project_id: w.project.id, post_id: id })],
    effect: async (_w, id, body) => {
      expect(body).toMatchObject({ id, status: 'draft', media: [], targets: [] });
    },
  },
  {
    name: 'PATCH /api/public/v1/projects/{project_id}/posts/{post_id} (text)',
    scopes: ['posts:write'],
    flags: ['can_edit_content'],
    status: 200,
    request: (w, key, id) =>
      w.t.http
        .patch(`/api/public/v1/projects/${w.project.id}/posts/${id}`)
        .set('Authorization', `Bearer ${key}`)
        .send({ text: 'Edited through the public API' }),
    tool: [
      'update_post',
      (w, id) => ({ project_id: w.project.id, post_id: id, text: 'Edited through the public API' }),
    ],
    effect: async (w, id) => {
      expect(await rows(w, 'SELECT text FROM posts WHERE id = $1', [id])).toEqual([
        { text: 'Edited through the public API' },
      ]);
    },
  },
  {
    name: 'PATCH /api/public/v1/projects/{project_id}/posts/{post_id} (scheduled_at)',
    scopes: ['posts:write', 'posts:publish'],
    flags: ['can_edit_content', 'can_publish'],
    status: 200,
    request: (w, key, id) =>
      w.t.http
        .patch(`/api/public/v1/projects/${w.project.id}/posts/${id}`)
        .set('Authorization', `Bearer ${key}`)
        .send({
          targets: [{ channel_ref: w.channel.id }],
          scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
        }),
    tool: [
      'update_post',
      (w, id) => ({
        project_id: w.project.id,
        post_id: id,
        targets: [{ channel_ref: w.channel.id }],
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    ],
    effect: async (w, id) => {
      const [row] = (await postRow(w, id)) as [{ status: string; targets: number }];
      expect(row).toMatchObject({ status: 'scheduled', targets: 1 });
    },
  },
  {
    name: 'DELETE /api/public/v1/projects/{project_id}/posts/{post_id}',
    scopes: ['posts:write'],
    flags: ['can_edit_content'],
    status: 204,
    request: (w, key, id) =>
      w.t.http
        .delete(`/api/public/v1/projects/${w.project.id}/posts/${id}`)
        .set('Authorization', `Bearer ${key}`),
    tool: ['delete_post', (w, id) => ({ project_id: w.project.id, post_id: id })],
    effect: async (w, id) => {
      expect(await postRow(w, id)).toEqual([]);
    },
  },
];

/**
 * The answer the order of checks gives: 401, 403 insufficient_scope, 404 project_not_found, 403
 * forbidden, or success.
 */
export function publicExpectation(
  r: PublicRouteCase,
  actor: PublicActor,
): { status: number; code?: string; flag?: PermissionFlag } {
  if (actor.kind === 'no key') return { status: 401, code: 'unauthorized' };
  if (actor.kind === 'without scope') return { status: 403, code: 'insufficient_scope' };
  if (actor.kind === 'non-member') return { status: 404, code: 'project_not_found' };
  const holds = (flag: PermissionFlag): boolean => {
    if (actor.kind === 'owner') return true;
    if (actor.kind === 'editor') return DEFAULT_PERMISSIONS.editor[flag];
    if (actor.kind === 'observer') return DEFAULT_PERMISSIONS.observer[flag];
    if (actor.kind === 'on') return actor.flag === flag;
    return actor.kind === 'off' && actor.flag !== flag;
  };
  const missing = r.flags.find((flag) => !holds(flag));
  return missing ? { status: 403, code: 'forbidden', flag: missing } : { status: r.status };
}
