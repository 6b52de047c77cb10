import { Factory, SignedInUser, TestChannel, TestProject } from '../support/factories/factories';
import { DiscordWorld, startWithDiscord } from '../support/factories/discord-world';
import { addMember } from '../support/factories/team';
import { waitForPostStatus } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { DiscordStandIn } from '../support/stand-ins/discord-stand-in';
import { TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';
import { fixture } from '../support/factories/media-helpers';

interface TargetAnswer {
  channel_ref: string;
  status: string;
  error: { code: string; message: string } | null;
  message_ids: number[];
}

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

/**
 * Whatever changes under a post between its creation and its send (a channel the platform
 * deleted, a stored file gone, the member who wrote it removed, the key that made it revoked), the
 * post ends with an answer an integrator can act on, never `published` without a send, and
 * nothing it already did is lost.
 */
describe('Rows changed under a post', () => {
  let world: DiscordWorld;
  let t: TestApp;
  let telegram: TelegramStandIn;
  let discord: DiscordStandIn;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    world = await startWithDiscord({
      PUBLICATION_RETRY_BASE_MS: '50',
      RATE_LIMIT_CREATE_POST: '1000',
      RATE_LIMIT_PUBLISH: '1000',
      RATE_LIMIT_OTHER: '1000',
      RATE_LIMIT_UPLOAD: '1000',
    });
    ({ t, telegram, discord, make } = world);
    ({ owner, project, key } = await make.owner('Under a post'));
  });

  afterAll(() => world?.close());

  beforeEach(() => telegram.reset());

  const api = (method: 'get' | 'post', path: string, as = key) =>
    t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${as}`,
    );
  const publishNow = async (channel: TestChannel, text = 'Now') =>
    (
      await api('post', '/posts')
        .send({ text, targets: [{ channel_ref: channel.id }], publish_now: true })
        .expect(201)
    ).body.id as number;
  const schedule = async (channel: TestChannel, as = key, extra: Record<string, unknown> = {}) =>
    (
      await api('post', '/posts', as)
        .send({
          text: 'Later',
          targets: [{ channel_ref: channel.id }],
          scheduled_at: inSeconds(2),
          ...extra,
        })
        .expect(201)
    ).body.id as number;
  const targetsOf = async (postId: number) =>
    (await api('get', `/posts/${postId}`).expect(200)).body.targets as TargetAnswer[];
  const listed = async (channel: TestChannel) =>
    (
      (await api('get', '/channels').expect(200)).body.items as (TestChannel & {
        missing_since: string | null;
      })[]
    ).find((c) => c.id === channel.id)!;
  const telegramChannel = async () => {
    const account = await make.telegramAccount(owner, project);
    return make.channel(owner, account.id);
  };

  describe('a channel the platform deleted', () => {
    it("Telegram: the target fails telegram_rejected with Telegram's words; the channel is flagged until a send succeeds", async () => {
      const channel = await telegramChannel();
      expect((await listed(channel)).missing_since).toBeNull();
      telegram.removeChat(channel.channel_id);

      const postId = await publishNow(channel);

      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      expect(await targetsOf(postId)).toEqual([
        expect.objectContaining({
          status: 'failed',
          error: {
            code: 'telegram_rejected',
            message: expect.stringContaining('Bad Request: chat not found'),
          },
        }),
      ]);
      expect((await listed(channel)).missing_since).toMatch(MICROS);

      telegram.addChat({ id: Number(channel.channel_id), type: 'channel', title: channel.title });
      const again = await publishNow(channel, 'Back');
      expect((await waitForPostStatus(t, again)).status).toBe('published');
      expect((await listed(channel)).missing_since).toBeNull();
    });

    it("Discord: 404 Unknown Channel fails the target discord_rejected with Discord's words and flags the channel", async () => {
      const bot = await world.discordAccount(owner, project);
      const channel = await world.discordChannel(owner, bot.id);
      discord.removeChannel(channel.channel_id);

      const postId = await publishNow(channel);

      expect((await waitForPostStatus(t, postId)).status).toBe('failed');
      expect((await targetsOf(postId))[0]).toMatchObject({
        status: 'failed',
        error: { code: 'discord_rejected', message: expect.stringContaining('Unknown Channel') },
      });
      expect((await listed(channel)).missing_since).toMatch(MICROS);
    });
  });

  it('a media file gone from storage at send time fails the target media_unavailable; nothing is sent', async () => {
    const channel = await telegramChannel();
    const upload = await api('post', '/media')
      .attach('files', fixture('sample.png'), 'sample.png')
      .expect(201);
    const asset = upload.body.items[0] as { id: number; storage_path: string };
    const postId = await schedule(channel, key, { media_ids: [asset.id] });
    await t.media.remove(asset.storage_path);

    const state = await waitForPostStatus(t, postId);

    expect(state).toEqual({ status: 'failed', published_at: null });
    expect((await targetsOf(postId))[0]).toMatchObject({
      status: 'failed',
      error: { code: 'media_unavailable', message: expect.any(String) },
    });
    expect(telegram.calls.filter((c) => c.method.startsWith('send'))).toEqual([]);
  });

  it('the member who scheduled a post is removed: the post is the project’s, and goes out', async () => {
    const channel = await telegramChannel();
    const member = await make.admin('Member');
    await addMember(t, owner, project, member, 'editor');
    const memberKey = await make.apiKey(member);
    const postId = await schedule(channel, memberKey);
    await t.http
      .delete(`/api/projects/${project.id}/members/${member.id}`)
      .set('Authorization', owner.auth)
      .expect(204);

    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    expect((await targetsOf(postId))[0]).toMatchObject({ status: 'published', error: null });
  });

  it('the key that scheduled a post is revoked: the post still goes out, and stays readable', async () => {
    const channel = await telegramChannel();
    const spare = await make.apiKey(owner, { name: 'spare' });
    const postId = await schedule(channel, spare);
    const keys = await t.http.get('/api/api-keys').set('Authorization', owner.auth).expect(200);
    const id = (keys.body.items as { id: number; prefix: string }[]).find((k) =>
      spare.startsWith(`${k.prefix}.`),
    )!.id;
    await t.http.delete(`/api/api-keys/${id}`).set('Authorization', owner.auth).expect(204);

    expect((await waitForPostStatus(t, postId)).status).toBe('published');
    expect((await targetsOf(postId))[0]).toMatchObject({ status: 'published', error: null });
  });
});
