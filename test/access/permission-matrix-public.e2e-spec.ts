import { PERMISSION_MESSAGES } from '../../src/access/permissions';

import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { addMember, allFlagsBut, onlyFlags } from '../support/factories/team';

import { type Answer, MCP_PATH, restAnswerOf, sendToolCall } from '../support/mcp';
import { registeredRoutes } from '../support/routes';
import { type World, newDraft, postRow } from './permission-matrix/app-routes';
import {
  type PublicRouteCase,
  PUBLIC_ACTORS,
  publicActorName,
  PUBLIC_ROUTES,
  publicExpectation,
} from './permission-matrix/public-routes';

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
