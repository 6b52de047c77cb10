import { MastodonStandIn } from '../support/stand-ins/mastodon-stand-in';
import { PERMISSION_FLAGS, PERMISSION_MESSAGES } from '../../src/access/permissions';
import { AiStandIn } from '../support/stand-ins/ai-stand-in';
import { SignedInUser } from '../support/factories/factories';

import { startWithTelegram, TelegramWorld } from '../support/factories/telegram-world';
import { addMember, allFlagsBut, onlyFlags } from '../support/factories/team';

import {
  ACTORS,
  actorName,
  holds,
  type World,
  newDraft,
  ROUTES,
  declaredFlags,
} from './permission-matrix/app-routes';

describe('Permission matrix: every guarded application route × every kind of caller', () => {
  const w = {} as World;
  const users = new Map<string, SignedInUser>();
  let world: TelegramWorld | undefined;

  beforeAll(async () => {
    w.ai = await new AiStandIn().start();
    w.mastodon = await new MastodonStandIn().start();
    world = await startWithTelegram({
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
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
    await w.mastodon?.stop();
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
    // The owner, two default roles, one caller holding only each flag and one lacking only it,
    // a user of no membership and a request without a session.
    expect(ACTORS).toHaveLength(3 + 2 * PERMISSION_FLAGS.length + 2);
    expect(new Set(ROUTES.map((r) => r.name)).size).toBe(ROUTES.length);
    expect(cells).toHaveLength(ROUTES.length * ACTORS.length);
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
