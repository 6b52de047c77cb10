import type { MastodonStandIn } from '../../support/stand-ins/mastodon-stand-in';
import { Reflector } from '@nestjs/core';

import type { Test } from 'supertest';
import { AUTH_KIND, type AuthKind, PermissionMetadata } from '../../../src/access/decorators';

import {
  DEFAULT_PERMISSIONS,
  PERMISSION_FLAGS,
  type PermissionFlag,
} from '../../../src/access/permissions';
import { AiStandIn } from '../../support/stand-ins/ai-stand-in';
import { Factory, SignedInUser, TestChannel, TestProject } from '../../support/factories/factories';
import { TelegramStandIn } from '../../support/stand-ins/telegram-stand-in';

import { addMember, memberRow, onlyFlags } from '../../support/factories/team';
import { TestApp } from '../../support/test-app';

import { registeredRoutes } from '../../support/routes';

/**
 * The permission matrix (docs/api-rules.md#roles-and-member-flags): every guarded application route
 * against every kind of caller. The table below is the specification: each route names its flag,
 * what a fresh target looks like, the request, the state that must not change when refused, and
 * the effect that must happen when allowed.
 */

export type Actor =
  | { kind: 'owner' }
  | { kind: 'editor' }
  | { kind: 'observer' }
  | { kind: 'on'; flag: PermissionFlag }
  | { kind: 'off'; flag: PermissionFlag }
  | { kind: 'non-member' }
  | { kind: 'no session' };

export const ACTORS: Actor[] = [
  { kind: 'owner' },
  { kind: 'editor' },
  { kind: 'observer' },
  ...PERMISSION_FLAGS.map((flag): Actor => ({ kind: 'on', flag })),
  ...PERMISSION_FLAGS.map((flag): Actor => ({ kind: 'off', flag })),
  { kind: 'non-member' },
  { kind: 'no session' },
];

export function actorName(actor: Actor): string {
  if (actor.kind === 'on') return `only ${actor.flag} on`;
  if (actor.kind === 'off') return `only ${actor.flag} off`;
  return actor.kind === 'editor' || actor.kind === 'observer'
    ? `default ${actor.kind}`
    : actor.kind;
}

/** What the actor's flags say about `flag`; null for callers who are not members at all. */
export function holds(actor: Actor, flag: PermissionFlag): boolean | null {
  switch (actor.kind) {
    case 'owner':
      return true;
    case 'editor':
      return DEFAULT_PERMISSIONS.editor[flag];
    case 'observer':
      return DEFAULT_PERMISSIONS.observer[flag];
    case 'on':
      return actor.flag === flag;
    case 'off':
      return actor.flag !== flag;
    default:
      return null;
  }
}

/** Everything a route case can reach. */
export interface World {
  t: TestApp;
  make: Factory;
  telegram: TelegramStandIn;
  ai: AiStandIn;
  /** An instance where connections through OAuth start. */
  mastodon: MastodonStandIn;
  owner: SignedInUser;
  project: TestProject;
  accountId: number;
  channel: TestChannel;
  /** A draft that stays, for the read routes. */
  postId: number;
}

export interface RouteCase<Target = unknown> {
  name: string;
  flag: PermissionFlag;
  /** Success status (docs/api-rules.md#errors lists them). */
  status: number;
  /** Code a non-member gets: the project's, or the named resource's. */
  notFound: string;
  /** Builds what the request acts on; called once per cell, so destructive routes get a fresh one. */
  target: (w: World) => Promise<Target>;
  request: (w: World, target: Target) => Test;
  /** The state that a refused request must leave untouched. */
  state: (w: World, target: Target) => Promise<unknown>;
  /** Asserts that an allowed request did its job. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the response body, as supertest gives it
  effect: (w: World, target: Target, body: any) => Promise<void>;
}

export function route<Target>(c: RouteCase<Target>): RouteCase {
  return c as RouteCase;
}

export let seq = 0;

export async function rows(w: World, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return (await w.t.db.query(sql, params)).rows;
}

export async function newTemplate(w: World): Promise<number> {
  const res = await w.t.http
    .post('/api/posts/templates')
    .set('Authorization', w.owner.auth)
    .send({ project_id: w.project.id, name: `Template ${++seq}`, text: 'Hello {name}' })
    .expect(201);
  return res.body.id as number;
}

/**
 * A receiver address that refuses connections at once (port 9, allowed by MEDIA_FETCH_ALLOW_CIDRS
 * in this world): test events are recorded and tried without waiting for a time-out.
 */
export const RECEIVER = 'http://127.0.0.1:9';

/** Deletes the project's webhooks: it holds at most ten, and every cell makes one. */
export async function deleteWebhooks(w: World): Promise<void> {
  const hooks = w.t.http.get(`/api/projects/${w.project.id}/webhooks`);
  const { body } = await hooks.set('Authorization', w.owner.auth).expect(200);
  for (const { id } of body.items as { id: number }[])
    await w.t.http
      .delete(`/api/projects/${w.project.id}/webhooks/${id}`)
      .set('Authorization', w.owner.auth)
      .expect(204);
}

/** A fresh webhook of the project, the others deleted first. */
export async function newWebhook(w: World): Promise<number> {
  await deleteWebhooks(w);
  const res = await w.t.http
    .post(`/api/projects/${w.project.id}/webhooks`)
    .set('Authorization', w.owner.auth)
    .send({ url: `${RECEIVER}/hook-${++seq}`, events: ['post.published'] })
    .expect(201);
  return res.body.id as number;
}

export async function newDraft(w: World): Promise<number> {
  const res = await w.t.http
    .post('/api/posts')
    .set('Authorization', w.owner.auth)
    .send({ project_id: w.project.id, text: `Draft ${++seq}` })
    .expect(201);
  return res.body.id as number;
}

export const postRow = (w: World, id: number) =>
  rows(
    w,
    `SELECT p.text, p.status, p.publish_attempt,
            (SELECT count(*)::int FROM post_targets t WHERE t.post_id = p.id) AS targets
       FROM posts p WHERE p.id = $1`,
    [id],
  );

/** One user per role in the table, created once: cheaper than registering one per cell. */
export const pool = new Map<string, Promise<SignedInUser>>();
export function poolUser(w: World, name: string): Promise<SignedInUser> {
  if (!pool.has(name)) pool.set(name, w.make.user(name));
  return pool.get(name)!;
}

/** The pool user, made a fresh observer with default flags (whatever the previous cell did). */
export async function freshObserver(w: World, name: string): Promise<SignedInUser> {
  const user = await poolUser(w, name);
  await removeIfMember(w, user);
  await addMember(w.t, w.owner, w.project, user, 'observer');
  return user;
}

export async function removeIfMember(w: World, user: SignedInUser): Promise<void> {
  await w.t.http
    .delete(`/api/projects/${w.project.id}/members/${user.id}`)
    .set('Authorization', w.owner.auth)
    .expect((res) => expect([204, 404]).toContain(res.status));
}

export const ROUTES: RouteCase[] = [
  // Members: list needs can_view_content; changes need can_manage_team
  // (docs/api-rules.md#team-rules).
  route({
    name: 'GET /api/projects/:id/members',
    flag: 'can_view_content',
    status: 200,
    notFound: 'project_not_found',
    target: async () => null,
    request: (w) => w.t.http.get(`/api/projects/${w.project.id}/members`),
    state: async () => null,
    effect: async (w, _target, body) => {
      const [{ count }] = (await rows(
        w,
        'SELECT count(*)::int AS count FROM project_members WHERE project_id = $1',
        [w.project.id],
      )) as unknown as [{ count: number }];
      expect(body.count).toBe(count);
      expect(body.items[0]).toHaveProperty('role_title');
    },
  }),
  route({
    name: 'POST /api/projects/:id/connections',
    flag: 'can_manage_accounts',
    status: 201,
    notFound: 'project_not_found',
    target: async () => null,
    request: (w) =>
      w.t.http
        .post(`/api/projects/${w.project.id}/connections`)
        .send({ platform: 'mastodon', instance_url: w.mastodon.url }),
    state: (w) =>
      rows(w, 'SELECT count(*)::int AS n FROM oauth_states WHERE project_id = $1', [w.project.id]),
    effect: async (w, _target, body) => {
      expect(new URL(body.authorize_url as string).origin).toBe(w.mastodon.url);
    },
  }),
  route({
    name: 'POST /api/projects/:id/members',
    flag: 'can_manage_team',
    status: 201,
    notFound: 'project_not_found',
    target: async (w) => {
      const user = await poolUser(w, 'Candidate');
      await removeIfMember(w, user);
      return user;
    },
    // All flags off, so that "grant only flags you hold" never stands in the way.
    request: (w, user: SignedInUser) =>
      w.t.http
        .post(`/api/projects/${w.project.id}/members`)
        .send({ email: user.email, role: 'observer', permissions: onlyFlags() }),
    state: (w, user: SignedInUser) => memberRow(w.t, w.project.id, user.id),
    effect: async (w, user: SignedInUser, body) => {
      expect(body).toMatchObject({ user_id: user.id, role: 'observer' });
      expect(await memberRow(w.t, w.project.id, user.id)).toEqual({
        role: 'observer',
        ...onlyFlags(),
      });
    },
  }),
  route({
    name: 'PATCH /api/projects/:id/members/:userId',
    flag: 'can_manage_team',
    status: 200,
    notFound: 'project_not_found',
    target: (w) => freshObserver(w, 'Patched'),
    request: (w, user: SignedInUser) =>
      w.t.http
        .patch(`/api/projects/${w.project.id}/members/${user.id}`)
        .send({ permissions: { can_view_analytics: false } }),
    state: (w, user: SignedInUser) => memberRow(w.t, w.project.id, user.id),
    effect: async (w, user: SignedInUser) => {
      expect(await memberRow(w.t, w.project.id, user.id)).toEqual({
        role: 'observer',
        ...onlyFlags('can_view_content'),
      });
    },
  }),
  route({
    name: 'DELETE /api/projects/:id/members/:userId',
    flag: 'can_manage_team',
    status: 204,
    notFound: 'project_not_found',
    target: (w) => freshObserver(w, 'Removed'),
    request: (w, user: SignedInUser) =>
      w.t.http.delete(`/api/projects/${w.project.id}/members/${user.id}`),
    state: (w, user: SignedInUser) => memberRow(w.t, w.project.id, user.id),
    effect: async (w, user: SignedInUser) => {
      expect(await memberRow(w.t, w.project.id, user.id)).toBeNull();
    },
  }),
  // Project settings.
  route({
    name: 'PUT /api/projects/:id',
    flag: 'can_manage_settings',
    status: 200,
    notFound: 'project_not_found',
    target: async () => `Renamed ${++seq}`,
    request: (w, name: string) =>
      w.t.http.put(`/api/projects/${w.project.id}`).send({ name, appearance: 'dark' }),
    state: (w) =>
      rows(w, 'SELECT name, timezone, appearance, wallpaper FROM projects WHERE id = $1', [
        w.project.id,
      ]),
    effect: async (w, name: string, body) => {
      expect(body).toMatchObject({ id: w.project.id, name, appearance: 'dark' });
      expect(await rows(w, 'SELECT name FROM projects WHERE id = $1', [w.project.id])).toEqual([
        { name },
      ]);
    },
  }),
  // Webhooks: every operation needs can_manage_settings.
  route({
    name: 'GET /api/projects/:id/webhooks',
    flag: 'can_manage_settings',
    status: 200,
    notFound: 'project_not_found',
    target: newWebhook,
    request: (w) => w.t.http.get(`/api/projects/${w.project.id}/webhooks`),
    state: async () => null,
    effect: async (_w, id: number, body) => {
      expect(body.items.map((i: { id: number }) => i.id)).toContain(id);
      expect(JSON.stringify(body)).not.toContain('whsec_');
    },
  }),
  route({
    name: 'POST /api/projects/:id/webhooks',
    flag: 'can_manage_settings',
    status: 201,
    notFound: 'project_not_found',
    target: async (w) => {
      // Room for one more: the project holds at most ten webhooks.
      await deleteWebhooks(w);
      return `/created-${++seq}`;
    },
    request: (w, path: string) =>
      w.t.http
        .post(`/api/projects/${w.project.id}/webhooks`)
        .send({ url: `${RECEIVER}${path}`, events: ['post.failed'] }),
    state: (w, path: string) =>
      rows(w, 'SELECT id FROM webhooks WHERE url = $1', [`${RECEIVER}${path}`]),
    effect: async (w, path: string, body) => {
      expect(body.secret).toMatch(/^whsec_/);
      expect(
        await rows(w, 'SELECT project_id FROM webhooks WHERE url = $1', [`${RECEIVER}${path}`]),
      ).toEqual([{ project_id: w.project.id }]);
    },
  }),
  route({
    name: 'DELETE /api/projects/:id/webhooks/:webhookId',
    flag: 'can_manage_settings',
    status: 204,
    notFound: 'project_not_found',
    target: newWebhook,
    request: (w, id: number) => w.t.http.delete(`/api/projects/${w.project.id}/webhooks/${id}`),
    state: (w, id: number) => rows(w, 'SELECT id FROM webhooks WHERE id = $1', [id]),
    effect: async (w, id: number) => {
      expect(await rows(w, 'SELECT id FROM webhooks WHERE id = $1', [id])).toEqual([]);
    },
  }),
  route({
    name: 'GET /api/projects/:id/webhooks/:webhookId/deliveries',
    flag: 'can_manage_settings',
    status: 200,
    notFound: 'project_not_found',
    target: newWebhook,
    request: (w, id: number) =>
      w.t.http.get(`/api/projects/${w.project.id}/webhooks/${id}/deliveries`),
    state: async () => null,
    effect: async (_w, _id: number, body) => {
      expect(body).toEqual({ items: [], count: 0, next_cursor: null });
    },
  }),
  route({
    name: 'POST /api/projects/:id/webhooks/:webhookId/test',
    flag: 'can_manage_settings',
    status: 202,
    notFound: 'project_not_found',
    target: newWebhook,
    request: (w, id: number) => w.t.http.post(`/api/projects/${w.project.id}/webhooks/${id}/test`),
    state: (w, id: number) =>
      rows(w, 'SELECT event_id FROM webhook_sends WHERE webhook_id = $1', [id]),
    effect: async (w, id: number, body) => {
      expect(
        await rows(w, 'SELECT event_id FROM webhook_sends WHERE webhook_id = $1', [id]),
      ).toEqual([{ event_id: body.event_id }]);
    },
  }),
  // Accounts (can_manage_accounts).
  route({
    name: 'POST /api/accounts',
    flag: 'can_manage_accounts',
    status: 201,
    notFound: 'project_not_found',
    target: async (w) => w.telegram.addBot(),
    request: (w, token: string) =>
      w.t.http
        .post('/api/accounts')
        .send({ project_id: w.project.id, platform: 'telegram', bot_token: token }),
    state: (w) =>
      rows(w, 'SELECT id FROM accounts WHERE project_id = $1 ORDER BY id', [w.project.id]),
    effect: async (w, _token, body) => {
      expect(await rows(w, 'SELECT project_id FROM accounts WHERE id = $1', [body.id])).toEqual([
        { project_id: w.project.id },
      ]);
    },
  }),
  route<{ id: number; token: string; sealed: string }>({
    name: 'PUT /api/accounts/:id',
    flag: 'can_manage_accounts',
    status: 200,
    notFound: 'account_not_found',
    target: async (w) => {
      // A new token of the same bot: another bot's is refused (account_mismatch).
      const account = await w.make.telegramAccount(w.owner, w.project);
      const [{ credentials_encrypted: sealed }] = (await rows(
        w,
        'SELECT credentials_encrypted FROM accounts WHERE id = $1',
        [account.id],
      )) as { credentials_encrypted: string }[];
      return { id: account.id, token: w.telegram.rotateToken(account.token), sealed };
    },
    request: (w, a) => w.t.http.put(`/api/accounts/${a.id}`).send({ bot_token: a.token }),
    state: (w, a) =>
      rows(w, 'SELECT username, credentials_encrypted FROM accounts WHERE id = $1', [a.id]),
    effect: async (w, a) => {
      const [row] = (await rows(w, 'SELECT credentials_encrypted FROM accounts WHERE id = $1', [
        a.id,
      ])) as { credentials_encrypted: string }[];
      expect(row.credentials_encrypted).not.toBe(a.sealed);
    },
  }),
  route({
    name: 'DELETE /api/accounts/:id',
    flag: 'can_manage_accounts',
    status: 204,
    notFound: 'account_not_found',
    target: async (w) => (await w.make.telegramAccount(w.owner, w.project)).id,
    request: (w, id: number) => w.t.http.delete(`/api/accounts/${id}`),
    state: (w, id: number) => rows(w, 'SELECT id, removed_at FROM accounts WHERE id = $1', [id]),
    effect: async (w, id: number) => {
      expect(
        await rows(w, 'SELECT id FROM accounts WHERE id = $1 AND removed_at IS NULL', [id]),
      ).toEqual([]);
    },
  }),
  route({
    name: 'POST /api/accounts/:id/channels',
    flag: 'can_manage_accounts',
    status: 201,
    notFound: 'account_not_found',
    target: async (w) => {
      const chatId = -1002000000000 - ++seq;
      w.telegram.addChat({ id: chatId, type: 'channel', title: `Matrix ${seq}` });
      return chatId;
    },
    request: (w, chatId: number) =>
      w.t.http.post(`/api/accounts/${w.accountId}/channels`).send({ chat: String(chatId) }),
    state: (w, chatId: number) =>
      rows(w, 'SELECT id FROM channels WHERE channel_id = $1', [String(chatId)]),
    effect: async (w, chatId: number) => {
      expect(
        await rows(w, 'SELECT account_id FROM channels WHERE channel_id = $1', [String(chatId)]),
      ).toEqual([{ account_id: w.accountId }]);
    },
  }),
  // AI generation: can_use_ai.
  route({
    name: 'POST /api/posts/generate-post',
    flag: 'can_use_ai',
    status: 200,
    notFound: 'project_not_found',
    target: async () => `prompt ${++seq}`,
    request: (w, prompt: string) =>
      w.t.http.post('/api/posts/generate-post').send({ project_id: w.project.id, prompt }),
    state: async (w, prompt: string) =>
      w.ai.calls.filter((c) => JSON.stringify(c.body).includes(prompt)).length,
    effect: async (w, prompt: string, body) => {
      expect(body).toEqual({ text: w.ai.text });
      expect(w.ai.calls.filter((c) => JSON.stringify(c.body).includes(prompt))).toHaveLength(1);
    },
  }),
  // Templates (can_manage_templates): every operation, generation included.
  route({
    name: 'GET /api/posts/templates',
    flag: 'can_manage_templates',
    status: 200,
    notFound: 'project_not_found',
    target: newTemplate,
    request: (w) => w.t.http.get('/api/posts/templates').query({ project_id: w.project.id }),
    state: async () => null,
    effect: async (_w, id: number, body) => {
      expect(body.items.map((i: { id: number }) => i.id)).toContain(id);
    },
  }),
  route({
    name: 'POST /api/posts/templates',
    flag: 'can_manage_templates',
    status: 201,
    notFound: 'project_not_found',
    target: async () => `Created ${++seq}`,
    request: (w, name: string) =>
      w.t.http.post('/api/posts/templates').send({ project_id: w.project.id, name, text: 'x' }),
    state: (w, name: string) => rows(w, 'SELECT id FROM post_templates WHERE name = $1', [name]),
    effect: async (w, name: string) => {
      expect(
        await rows(w, 'SELECT project_id FROM post_templates WHERE name = $1', [name]),
      ).toEqual([{ project_id: w.project.id }]);
    },
  }),
  route({
    name: 'GET /api/posts/templates/:id',
    flag: 'can_manage_templates',
    status: 200,
    notFound: 'template_not_found',
    target: newTemplate,
    request: (w, id: number) => w.t.http.get(`/api/posts/templates/${id}`),
    state: async () => null,
    effect: async (_w, id: number, body) => {
      expect(body).toMatchObject({ id, text: 'Hello {name}' });
    },
  }),
  route({
    name: 'PUT /api/posts/templates/:id',
    flag: 'can_manage_templates',
    status: 200,
    notFound: 'template_not_found',
    target: newTemplate,
    request: (w, id: number) =>
      w.t.http.put(`/api/posts/templates/${id}`).send({ text: 'Changed' }),
    state: (w, id: number) =>
      rows(w, 'SELECT name, text, updated_at FROM post_templates WHERE id = $1', [id]),
    effect: async (w, id: number) => {
      expect(await rows(w, 'SELECT text FROM post_templates WHERE id = $1', [id])).toEqual([
        { text: 'Changed' },
      ]);
    },
  }),
  route({
    name: 'DELETE /api/posts/templates/:id',
    flag: 'can_manage_templates',
    status: 204,
    notFound: 'template_not_found',
    target: newTemplate,
    request: (w, id: number) => w.t.http.delete(`/api/posts/templates/${id}`),
    state: (w, id: number) => rows(w, 'SELECT id FROM post_templates WHERE id = $1', [id]),
    effect: async (w, id: number) => {
      expect(await rows(w, 'SELECT id FROM post_templates WHERE id = $1', [id])).toEqual([]);
    },
  }),
  route({
    name: 'POST /api/posts/templates/generate',
    flag: 'can_manage_templates',
    status: 201,
    notFound: 'project_not_found',
    target: async () => `Generated ${++seq}`,
    request: (w, name: string) =>
      w.t.http
        .post('/api/posts/templates/generate')
        .send({ project_id: w.project.id, prompt: 'digest', name }),
    state: (w, name: string) => rows(w, 'SELECT id FROM post_templates WHERE name = $1', [name]),
    effect: async (w, name: string) => {
      expect(await rows(w, 'SELECT text FROM post_templates WHERE name = $1', [name])).toEqual([
        { text: w.ai.text },
      ]);
    },
  }),
  // Posts: the same PostsService as the public API.
  route({
    name: 'GET /api/posts',
    flag: 'can_view_content',
    status: 200,
    notFound: 'project_not_found',
    target: async () => null,
    request: (w) => w.t.http.get('/api/posts').query({ project_id: w.project.id, limit: 100 }),
    state: async () => null,
    effect: async (w, _target, body) => {
      expect(body.items.map((i: { id: number }) => i.id)).toContain(w.postId);
    },
  }),
  route<string>({
    name: 'POST /api/posts',
    flag: 'can_edit_content',
    status: 201,
    notFound: 'project_not_found',
    target: async () => `Created post ${++seq}`,
    request: (w, text) => w.t.http.post('/api/posts').send({ project_id: w.project.id, text }),
    state: (w, text) => rows(w, 'SELECT id FROM posts WHERE text = $1', [text]),
    effect: async (w, text, body) => {
      expect(body).toMatchObject({ status: 'draft', text });
      expect(await rows(w, 'SELECT project_id, status FROM posts WHERE text = $1', [text])).toEqual(
        [{ project_id: w.project.id, status: 'draft' }],
      );
    },
  }),
  route<number>({
    name: 'PUT /api/posts/:id',
    flag: 'can_edit_content',
    status: 200,
    notFound: 'post_not_found',
    target: newDraft,
    request: (w, id) => w.t.http.put(`/api/posts/${id}`).send({ text: 'Edited in the matrix' }),
    state: postRow,
    effect: async (w, id) => {
      expect(await rows(w, 'SELECT text FROM posts WHERE id = $1', [id])).toEqual([
        { text: 'Edited in the matrix' },
      ]);
    },
  }),
  route<number>({
    name: 'DELETE /api/posts/:id',
    flag: 'can_edit_content',
    status: 204,
    notFound: 'post_not_found',
    target: newDraft,
    request: (w, id) => w.t.http.delete(`/api/posts/${id}`),
    state: postRow,
    effect: async (w, id) => {
      expect(await postRow(w, id)).toEqual([]);
    },
  }),
  route<number>({
    name: 'POST /api/posts/publish',
    flag: 'can_publish',
    status: 202,
    notFound: 'project_not_found',
    target: newDraft,
    request: (w, id) =>
      w.t.http.post('/api/posts/publish').send({
        project_id: w.project.id,
        post_id: id,
        targets: [{ channel_ref: w.channel.id }],
      }),
    state: postRow,
    effect: async (w, id, body) => {
      expect(body).toEqual({ id, status: 'publishing', test: false });
      const [row] = (await postRow(w, id)) as [{ status: string; targets: number }];
      expect(['publishing', 'published']).toContain(row.status);
      expect(row.targets).toBe(1);
    },
  }),
  route<string>({
    name: 'POST /api/posts/generate-image',
    flag: 'can_use_ai',
    status: 201,
    notFound: 'project_not_found',
    target: async () => `picture ${++seq}`,
    request: (w, prompt) =>
      w.t.http.post('/api/posts/generate-image').send({ project_id: w.project.id, prompt }),
    state: (w) =>
      rows(w, 'SELECT id FROM media_assets WHERE project_id = $1 ORDER BY id', [w.project.id]),
    effect: async (w, _prompt, body) => {
      expect(body).toMatchObject({ type: 'image', mime_type: 'image/png' });
      expect(await rows(w, 'SELECT project_id FROM media_assets WHERE id = $1', [body.id])).toEqual(
        [{ project_id: w.project.id }],
      );
    },
  }),
  // Analytics (can_view_analytics).
  route({
    name: 'GET /api/analytics/channels',
    flag: 'can_view_analytics',
    status: 200,
    notFound: 'project_not_found',
    target: async () => null,
    request: (w) => w.t.http.get('/api/analytics/channels').query({ project_id: w.project.id }),
    state: async () => null,
    effect: async (w, _target, body) => {
      expect(body.items).toContainEqual(expect.objectContaining({ id: w.channel.id, failed: 0 }));
    },
  }),
];

/** Every application (session) route that names a flag in `@RequirePermission`, `METHOD /path` → flag. */
export function declaredFlags(t: TestApp): Record<string, PermissionFlag> {
  const reflector = t.app.get(Reflector);
  const found: Record<string, PermissionFlag> = {};
  for (const { route, targets } of registeredRoutes(t.app)) {
    if (reflector.getAllAndOverride<AuthKind>(AUTH_KIND, targets) !== 'session') continue;
    const flag = reflector.getAllAndOverride(PermissionMetadata, targets)?.flag;
    if (flag) found[route] = flag;
  }
  return found;
}
