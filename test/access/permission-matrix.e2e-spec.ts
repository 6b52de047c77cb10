import { appRoutes } from '@bull-board/api/dist/routes.js';
import { getQueueToken } from '@nestjs/bull';
import { Reflector } from '@nestjs/core';
import type { Queue } from 'bull';
import type { Test } from 'supertest';
import { AUTH_KIND, type AuthKind, PermissionMetadata } from '../../src/access/decorators';
import { runCli } from '../../src/operations/cli/commands';
import {
  DEFAULT_PERMISSIONS,
  PERMISSION_FLAGS,
  PERMISSION_MESSAGES,
  type PermissionFlag,
} from '../../src/access/permissions';
import { AiStandIn } from '../support/stand-ins/ai-stand-in';
import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { addMember, allFlagsBut, memberRow, onlyFlags } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';
import { type Answer, MCP_PATH, restAnswerOf, sendToolCall } from '../support/mcp';
import { registeredRoutes } from '../support/routes';

/**
 * The permission matrix (docs/api-rules.md#roles-and-member-flags): every guarded application route
 * against every kind of caller. The table below is the specification: each route names its flag,
 * what a fresh target looks like, the request, the state that must not change when refused, and
 * the effect that must happen when allowed.
 */

type Actor =
  | { kind: 'owner' }
  | { kind: 'editor' }
  | { kind: 'observer' }
  | { kind: 'on'; flag: PermissionFlag }
  | { kind: 'off'; flag: PermissionFlag }
  | { kind: 'non-member' }
  | { kind: 'no session' };

const ACTORS: Actor[] = [
  { kind: 'owner' },
  { kind: 'editor' },
  { kind: 'observer' },
  ...PERMISSION_FLAGS.map((flag): Actor => ({ kind: 'on', flag })),
  ...PERMISSION_FLAGS.map((flag): Actor => ({ kind: 'off', flag })),
  { kind: 'non-member' },
  { kind: 'no session' },
];

function actorName(actor: Actor): string {
  if (actor.kind === 'on') return `only ${actor.flag} on`;
  if (actor.kind === 'off') return `only ${actor.flag} off`;
  return actor.kind === 'editor' || actor.kind === 'observer'
    ? `default ${actor.kind}`
    : actor.kind;
}

/** What the actor's flags say about `flag`; null for callers who are not members at all. */
function holds(actor: Actor, flag: PermissionFlag): boolean | null {
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
interface World {
  t: TestApp;
  make: Factory;
  telegram: TelegramStandIn;
  ai: AiStandIn;
  owner: SignedInUser;
  project: TestProject;
  accountId: number;
  channel: TestChannel;
  /** A draft that stays, for the read routes. */
  postId: number;
}

interface RouteCase<Target = unknown> {
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

function route<Target>(c: RouteCase<Target>): RouteCase {
  return c as RouteCase;
}

let seq = 0;

async function rows(w: World, sql: string, params: unknown[] = []): Promise<unknown[]> {
  return (await w.t.db.query(sql, params)).rows;
}

async function newTemplate(w: World): Promise<number> {
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
const RECEIVER = 'http://127.0.0.1:9';

/** Deletes the project's webhooks: it holds at most ten, and every cell makes one. */
async function deleteWebhooks(w: World): Promise<void> {
  const hooks = w.t.http.get(`/api/projects/${w.project.id}/webhooks`);
  const { body } = await hooks.set('Authorization', w.owner.auth).expect(200);
  for (const { id } of body.items as { id: number }[])
    await w.t.http
      .delete(`/api/projects/${w.project.id}/webhooks/${id}`)
      .set('Authorization', w.owner.auth)
      .expect(204);
}

/** A fresh webhook of the project, the others deleted first. */
async function newWebhook(w: World): Promise<number> {
  await deleteWebhooks(w);
  const res = await w.t.http
    .post(`/api/projects/${w.project.id}/webhooks`)
    .set('Authorization', w.owner.auth)
    .send({ url: `${RECEIVER}/hook-${++seq}`, events: ['post.published'] })
    .expect(201);
  return res.body.id as number;
}

async function newDraft(w: World): Promise<number> {
  const res = await w.t.http
    .post('/api/posts')
    .set('Authorization', w.owner.auth)
    .send({ project_id: w.project.id, text: `Draft ${++seq}` })
    .expect(201);
  return res.body.id as number;
}

const postRow = (w: World, id: number) =>
  rows(
    w,
    `SELECT p.text, p.status, p.publish_attempt,
            (SELECT count(*)::int FROM post_targets t WHERE t.post_id = p.id) AS targets
       FROM posts p WHERE p.id = $1`,
    [id],
  );

/** One user per role in the table, created once: cheaper than registering one per cell. */
const pool = new Map<string, Promise<SignedInUser>>();
function poolUser(w: World, name: string): Promise<SignedInUser> {
  if (!pool.has(name)) pool.set(name, w.make.user(name));
  return pool.get(name)!;
}

/** The pool user, made a fresh observer with default flags (whatever the previous cell did). */
async function freshObserver(w: World, name: string): Promise<SignedInUser> {
  const user = await poolUser(w, name);
  await removeIfMember(w, user);
  await addMember(w.t, w.owner, w.project, user, 'observer');
  return user;
}

async function removeIfMember(w: World, user: SignedInUser): Promise<void> {
  await w.t.http
    .delete(`/api/projects/${w.project.id}/members/${user.id}`)
    .set('Authorization', w.owner.auth)
    .expect((res) => expect([204, 404]).toContain(res.status));
}

const ROUTES: RouteCase[] = [
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
  route<{ id: number; token: string; username: string }>({
    name: 'PUT /api/accounts/:id',
    flag: 'can_manage_accounts',
    status: 200,
    notFound: 'account_not_found',
    target: async (w) => {
      const username = `replacement_${++seq}_bot`;
      const id = (await w.make.telegramAccount(w.owner, w.project)).id;
      return { id, username, token: w.telegram.addBot(username) };
    },
    request: (w, a) => w.t.http.put(`/api/accounts/${a.id}`).send({ bot_token: a.token }),
    state: (w, a) =>
      rows(w, 'SELECT username, credentials_encrypted FROM accounts WHERE id = $1', [a.id]),
    effect: async (w, a) => {
      expect(await rows(w, 'SELECT username FROM accounts WHERE id = $1', [a.id])).toEqual([
        { username: a.username },
      ]);
    },
  }),
  route({
    name: 'DELETE /api/accounts/:id',
    flag: 'can_manage_accounts',
    status: 204,
    notFound: 'account_not_found',
    target: async (w) => (await w.make.telegramAccount(w.owner, w.project)).id,
    request: (w, id: number) => w.t.http.delete(`/api/accounts/${id}`),
    state: (w, id: number) => rows(w, 'SELECT id FROM accounts WHERE id = $1', [id]),
    effect: async (w, id: number) => {
      expect(await rows(w, 'SELECT id FROM accounts WHERE id = $1', [id])).toEqual([]);
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
function declaredFlags(t: TestApp): Record<string, PermissionFlag> {
  const reflector = t.app.get(Reflector);
  const found: Record<string, PermissionFlag> = {};
  for (const { route, targets } of registeredRoutes(t.app)) {
    if (reflector.getAllAndOverride<AuthKind>(AUTH_KIND, targets) !== 'session') continue;
    const flag = reflector.getAllAndOverride(PermissionMetadata, targets)?.flag;
    if (flag) found[route] = flag;
  }
  return found;
}

describe('Permission matrix: every guarded application route × every kind of caller', () => {
  const w = {} as World;
  const users = new Map<string, SignedInUser>();
  let world: TelegramWorld | undefined;

  beforeAll(async () => {
    w.ai = await new AiStandIn().start();
    world = await startWithTelegram({
      AI_API_BASE_URL: w.ai.url,
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '100000',
      MEDIA_FETCH_ALLOW_CIDRS: '127.0.0.1/32',
      WEBHOOK_RETRY_DELAYS_MS: '0',
    });
    ({ t: w.t, telegram: w.telegram, make: w.make } = world);
    ({ owner: w.owner, project: w.project } = await w.make.owner('Matrix'));
    w.accountId = (await w.make.telegramAccount(w.owner, w.project)).id;
    w.channel = await w.make.channel(w.owner, w.accountId);
    w.postId = await newDraft(w);
    users.set('owner', w.owner);
    for (const actor of ACTORS) {
      const name = actorName(actor);
      if (actor.kind === 'owner' || actor.kind === 'no session') continue;
      const user = await w.make.user(name);
      users.set(name, user);
      if (actor.kind === 'editor' || actor.kind === 'observer') {
        await addMember(w.t, w.owner, w.project, user, actor.kind);
      } else if (actor.kind === 'on') {
        await addMember(w.t, w.owner, w.project, user, 'editor', onlyFlags(actor.flag));
      } else if (actor.kind === 'off') {
        await addMember(w.t, w.owner, w.project, user, 'editor', allFlagsBut(actor.flag));
      }
    }
  });

  afterAll(async () => {
    await world?.close();
    await w.ai?.stop();
  });

  const cells = ROUTES.flatMap((r) =>
    ACTORS.map((actor) => {
      const held = holds(actor, r.flag);
      const expected =
        actor.kind === 'no session' ? 401 : held === null ? 404 : held ? r.status : 403;
      return [r.name, actorName(actor), expected, r, actor] as const;
    }),
  );

  it('covers every route for every caller', () => {
    expect(ACTORS).toHaveLength(23);
    expect(ROUTES).toHaveLength(28);
    // The matrix's size: 28 guarded routes × 23 callers.
    expect(cells).toHaveLength(644);
  });

  it('has a row, with the same flag, for every route that declares one', () => {
    const declared = declaredFlags(w.t);
    const table = Object.fromEntries(ROUTES.map((r) => [r.name, r.flag]));
    expect(Object.keys(declared).length).toBeGreaterThan(10);
    for (const [name, flag] of Object.entries(declared)) {
      expect({ name, flag: table[name] }).toEqual({ name, flag });
    }
    // Membership is enough to leave; removing someone else needs can_manage_team.
    expect(ROUTES.map((r) => r.name).filter((name) => !(name in declared))).toEqual([
      'DELETE /api/projects/:id/members/:userId',
    ]);
  });

  it.each(cells)('%s as %s → %i', async (_name, actor, expected, r) => {
    const target = await r.target(w);
    const before = await r.state(w, target);
    const call = r.request(w, target);
    const user = users.get(actor);
    const res = await (user ? call.set('Authorization', user.auth) : call);
    expect({ status: res.status, error: res.body?.error }).toMatchObject({ status: expected });
    if (expected === r.status) {
      await r.effect(w, target, res.body);
      return;
    }
    if (expected === 403) {
      expect(res.body.error).toEqual({ code: 'forbidden', message: PERMISSION_MESSAGES[r.flag] });
    } else if (expected === 404) {
      expect(res.body.error.code).toBe(r.notFound);
    } else {
      expect(res.body.error.code).toBe('unauthorized');
    }
    expect(await r.state(w, target)).toEqual(before);
  });
});

/**
 * The public API's one-post routes × callers: the scope and the member flags of the API key's user,
 * in the order of checks (docs/api-rules.md#order-of-checks). Every caller is an administrator, so
 * it may hold keys.
 */
interface PublicRouteCase {
  name: string;
  scopes: string[];
  flags: PermissionFlag[];
  status: number;
  request: (w: World, key: string, postId: number) => Test;
  /** The MCP tool that runs this route, and its arguments for the same request. */
  tool: [name: string, args: (w: World, postId: number) => Record<string, unknown>];
  effect: (w: World, postId: number, body: { id?: number }) => Promise<void>;
}

type PublicActor =
  | { kind: 'owner' | 'editor' | 'observer' | 'non-member' | 'no key' }
  | { kind: 'on' | 'off'; flag: PermissionFlag }
  | { kind: 'without scope' };

const PUBLIC_FLAGS: PermissionFlag[] = ['can_view_content', 'can_edit_content', 'can_publish'];
const PUBLIC_ACTORS: PublicActor[] = [
  { kind: 'owner' },
  { kind: 'editor' },
  { kind: 'observer' },
  ...PUBLIC_FLAGS.map((flag): PublicActor => ({ kind: 'on', flag })),
  ...PUBLIC_FLAGS.map((flag): PublicActor => ({ kind: 'off', flag })),
  { kind: 'without scope' },
  { kind: 'non-member' },
  { kind: 'no key' },
];

function publicActorName(actor: PublicActor): string {
  return 'flag' in actor ? `only ${actor.flag} ${actor.kind}` : actor.kind;
}

const PUBLIC_ROUTES: PublicRouteCase[] = [
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
function publicExpectation(
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

describe('Permission matrix: the public API’s one-post routes × every kind of caller', () => {
  const w = {} as World;
  const keys = new Map<string, string>();
  let world: TelegramWorld | undefined;

  beforeAll(async () => {
    world = await startWithTelegram({ RATE_LIMIT_OTHER: '100000' });
    ({ t: w.t, telegram: w.telegram, make: w.make } = world);
    const owner = await w.make.owner('Public matrix');
    ({ owner: w.owner, project: w.project } = owner);
    w.accountId = (await w.make.telegramAccount(w.owner, w.project)).id;
    w.channel = await w.make.channel(w.owner, w.accountId);
    keys.set('owner', owner.key);
    for (const actor of PUBLIC_ACTORS) {
      const name = publicActorName(actor);
      if (actor.kind === 'owner' || actor.kind === 'no key') continue;
      if (actor.kind === 'without scope') {
        keys.set(name, await w.make.apiKey(w.owner, { scopes: ['projects:read'] }));
        continue;
      }
      const user = await w.make.admin(name);
      if (actor.kind === 'editor' || actor.kind === 'observer')
        await addMember(w.t, w.owner, w.project, user, actor.kind);
      else if (actor.kind === 'on')
        await addMember(w.t, w.owner, w.project, user, 'editor', onlyFlags(actor.flag));
      else if (actor.kind === 'off')
        await addMember(w.t, w.owner, w.project, user, 'editor', allFlagsBut(actor.flag));
      keys.set(name, await w.make.apiKey(user));
    }
  });

  afterAll(async () => {
    await world?.close();
  });

  // Each route twice: over REST, and as its MCP tool (which must answer the same, in the same order of checks).
  const cells = PUBLIC_ROUTES.flatMap((r) =>
    [false, true].flatMap((mcp) =>
      PUBLIC_ACTORS.map(
        (actor) =>
          [
            mcp ? `${r.name} as the MCP tool ${r.tool[0]}` : r.name,
            publicActorName(actor),
            r,
            actor,
            mcp,
          ] as const,
      ),
    ),
  );

  /** The route's answer, or the MCP tool's read as the REST answer it stands for. */
  async function answer(
    r: PublicRouteCase,
    key: string,
    id: number,
    mcp: boolean,
  ): Promise<Answer> {
    if (!mcp) return r.request(w, key, id);
    const call = w.t.http.post(MCP_PATH).set('Authorization', `Bearer ${key}`);
    return restAnswerOf(
      await sendToolCall(call, r.tool[0], JSON.stringify(r.tool[1](w, id))),
      r.status,
    );
  }

  it('covers every one-post route for every caller', () => {
    expect(cells).toHaveLength(PUBLIC_ROUTES.length * PUBLIC_ACTORS.length * 2);
    const declared = registeredRoutes(w.t.app)
      .map(({ route }) => route)
      .filter((route) =>
        /^(GET|PATCH|DELETE) \/api\/public\/v1\/projects\/:projectId\/posts\/:postId$/.test(route),
      );
    expect(declared.sort()).toEqual([
      'DELETE /api/public/v1/projects/:projectId/posts/:postId',
      'GET /api/public/v1/projects/:projectId/posts/:postId',
      'PATCH /api/public/v1/projects/:projectId/posts/:postId',
    ]);
  });

  it.each(cells)('%s as %s', async (_name, actor, r, who, mcp) => {
    const id = await newDraft(w);
    const before = await postRow(w, id);
    const expected = publicExpectation(r, who);
    const res = (await answer(r, keys.get(actor) ?? 'hrld_live_none', id, mcp)) as {
      status: number;
      body: { id?: number; error?: { code: string; message: string } };
    };
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({
      status: expected.status,
      code: expected.code,
    });
    if (expected.status === r.status) {
      await r.effect(w, id, res.body);
      return;
    }
    if (expected.flag) expect(res.body.error?.message).toBe(PERMISSION_MESSAGES[expected.flag]);
    expect(await postRow(w, id)).toEqual(before);
  });
});

/**
 * The queue dashboard and its API, by global role: only operators get in, whatever else a user
 * is. An administrator (who may create API keys) is refused every route of the board like anyone.
 */
describe('Permission matrix: the queue dashboard by global role', () => {
  type Role = 'member' | 'administrator' | 'operator' | 'administrator and operator';
  const ROLES: Role[] = ['member', 'administrator', 'operator', 'administrator and operator'];
  const opens = (role: Role) => role.includes('operator');
  let t: TestApp;
  const users = new Map<Role, SignedInUser>();

  /** Every route of Bull Board's API, with its parameters filled in. */
  const BOARD_ROUTES = (appRoutes.api as { method: string; route: string }[]).map(
    ({ method, route }) => ({
      method,
      path: `/admin/queues${route
        .replace(':queueName', 'publication')
        .replace(':jobId', 'post:1:1')
        .replace(':queueStatus', 'failed')
        .replace(':schedulerId', 'none')}`,
    }),
  );

  beforeAll(async () => {
    t = await startTestApp({ APP_ROLE: 'api' });
    const make = new Factory(t);
    users.set('member', await make.user('Member'));
    users.set('administrator', await make.admin('Administrator'));
    users.set('operator', await make.operator('Operator'));
    const both = await make.admin('Both');
    expect(await runCli(['grant-operator', both.email], t.config, { out: () => undefined })).toBe(
      0,
    );
    users.set('administrator and operator', both);
  });

  afterAll(() => t?.close());

  it.each(ROLES)('the dashboard page and its queue list as %s', async (role) => {
    const auth = users.get(role)!.auth;
    const page = await t.http.get('/admin/queues').set('Authorization', auth);
    const list = await t.http.get('/admin/queues/api/queues').set('Authorization', auth);
    expect([page.status, list.status]).toEqual(opens(role) ? [200, 200] : [403, 403]);
  });

  it.each(ROLES.filter((role) => !opens(role)))(
    'every action of the board’s API is refused to %s',
    async (role) => {
      const auth = users.get(role)!.auth;
      expect(BOARD_ROUTES.length).toBeGreaterThan(30);
      for (const { method, path } of BOARD_ROUTES) {
        const call = (t.http as unknown as Record<string, (url: string) => Test>)[method];
        const res = await call(path).set('Authorization', auth).send({});
        expect([method, path, res.status, res.body?.error?.code]).toEqual([
          method,
          path,
          403,
          'forbidden',
        ]);
      }
    },
  );

  it.each(ROLES.filter(opens))('pausing and resuming the queue as %s', async (role) => {
    const auth = users.get(role)!.auth;
    const queue = t.app.get<Queue>(getQueueToken('publication'));
    await t.http
      .put('/admin/queues/api/queues/publication/pause')
      .set('Authorization', auth)
      .expect(200);
    expect(await queue.isPaused()).toBe(true);
    await t.http
      .put('/admin/queues/api/queues/publication/resume')
      .set('Authorization', auth)
      .expect(200);
    expect(await queue.isPaused()).toBe(false);
  });
});
