import { File } from 'node:buffer';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../../infrastructure/config/config';
import { DiscordStandIn } from '../../../../test/support/stand-ins/discord-stand-in';
import { DiscordApi, DiscordApiError, DiscordTransportError, toDeliveryError } from './discord-api';

/** The Discord client against the stand-in: what it sends, and what each answer becomes. */
describe('DiscordApi', () => {
  let discord: DiscordStandIn;
  let api: DiscordApi;
  const client = (base: string) =>
    new DiscordApi({
      publicBaseUrl: 'https://herald.example',
      platforms: { discord: { apiBaseUrl: base } },
    } as unknown as AppConfig);
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (e: unknown) => e,
    );

  beforeAll(async () => {
    discord = await new DiscordStandIn().start();
    api = client(discord.url);
  });
  afterAll(() => discord.stop());
  beforeEach(() => discord.reset());

  it('authorizes as a bot and names itself as Discord asks', async () => {
    const token = discord.addBot('herald-news');
    const user = await api.getCurrentUser(token);
    expect(user).toMatchObject({ id: discord.botId(token), username: 'herald-news', bot: true });
    const [call] = discord.callsOf('getCurrentUser');
    expect(call.headers.authorization).toBe(`Bot ${token}`);
    expect(call.headers['user-agent']).toBe('DiscordBot (https://herald.example, 1.0)');
  });

  it("a refused token is Discord's 401, the token nowhere in the error", async () => {
    const token = 'MTIz.bad.token-value-that-is-secret';
    const error = await failure(api.getCurrentUser(token));
    expect(error).toBeInstanceOf(DiscordApiError);
    expect(error).toMatchObject({ status: 401, code: 0, description: '401: Unauthorized' });
    expect(JSON.stringify(error) + (error as Error).message).not.toContain('secret');
    expect(toDeliveryError(error).failure).toBe('unauthorized');
  });

  it("reads a channel, and an unknown one is Discord's 404 Unknown Channel", async () => {
    const token = discord.addBot();
    const channel = discord.addChannel({ type: 5, name: 'announcements' });
    expect(await api.getChannel(token, channel.id)).toMatchObject({
      id: channel.id,
      type: 5,
      name: 'announcements',
      guild_id: channel.guild_id,
    });
    const error = await failure(api.getChannel(token, '1234567890'));
    expect(error).toMatchObject({ status: 404, code: 10003, description: 'Unknown Channel' });
    expect(toDeliveryError(error)).toMatchObject({
      failure: 'channel_gone',
      errorCode: 'discord_rejected',
      message: 'Discord 404: Unknown Channel',
    });
  });

  it('posts text as JSON, and the same nonce again returns the message it made', async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    const body = { content: 'Hello', nonce: '3m5kqz2xw7a2b-0', enforce_nonce: true };
    const first = await api.createMessage(token, channel.id, body, [], 5_000);
    expect(first).toMatchObject({ channel_id: channel.id, content: 'Hello', nonce: body.nonce });
    const [call] = discord.callsOf('createMessage');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.json).toEqual(body);
    const again = await api.createMessage(token, channel.id, body, [], 5_000);
    expect(again.id).toBe(first.id);
    expect(discord.messagesIn(channel.id)).toHaveLength(1);
  });

  it('posts files as multipart: payload_json, then files[n] named by the attachments', async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    const files = [
      new File([Buffer.from('png bytes')], 'a.png', { type: 'image/png' }),
      new File([Buffer.from('mp4 bytes!')], 'b.mp4', { type: 'video/mp4' }),
    ];
    const body = {
      content: 'Two files',
      nonce: 'k-1',
      enforce_nonce: true,
      attachments: [
        { id: 0, filename: 'a.png' },
        { id: 1, filename: 'b.mp4' },
      ],
    };
    const message = await api.createMessage(token, channel.id, body, files, 5_000);
    expect(message.attachments.map((a) => [a.filename, a.size])).toEqual([
      ['a.png', 9],
      ['b.mp4', 10],
    ]);
    const [call] = discord.callsOf('createMessage');
    expect(call.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(Object.keys(call.fields)).toEqual(['payload_json']);
    expect(call.json).toEqual(body);
    expect(call.files.map((f) => [f.field, f.filename, f.mimeType, f.bytes.toString()])).toEqual([
      ['files[0]', 'a.png', 'image/png', 'png bytes'],
      ['files[1]', 'b.mp4', 'video/mp4', 'mp4 bytes!'],
    ]);
  });

  it("a channel's sixth message in five seconds is a 429 with Discord's wait and headers", async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    for (let i = 0; i < 5; i++)
      await api.createMessage(token, channel.id, { content: `m${i}` }, [], 5_000);
    const error = await failure(api.createMessage(token, channel.id, { content: 'm5' }, [], 5_000));
    expect(error).toMatchObject({ status: 429, global: false });
    const limited = error as DiscordApiError;
    expect(limited.retryAfterMs).toBeGreaterThan(3_000);
    expect(limited.retryAfterMs).toBeLessThanOrEqual(5_000);
    expect(limited.rateLimit).toMatchObject({
      bucket: '80c17d2f203122d936070c88c8d10f33',
      limit: 5,
      remaining: 0,
      scope: 'user',
    });
    expect(toDeliveryError(error)).toMatchObject({
      failure: 'rate_limited',
      retryAfterMs: limited.retryAfterMs,
    });
    // Another channel of the bot has its own bucket.
    const other = discord.addChannel();
    await expect(
      api.createMessage(token, other.id, { content: 'z' }, [], 5_000),
    ).resolves.toBeDefined();
  });

  it("the global limit's 429 says so, and its float retry_after is waited to the ms", async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    discord.script('createMessage', { status: 429, retryAfter: 0.3371, global: true });
    const error = await failure(api.createMessage(token, channel.id, { content: 'z' }, [], 5_000));
    expect(error).toMatchObject({ status: 429, global: true, retryAfterMs: 338 });
    expect((error as DiscordApiError).rateLimit?.scope).toBe('global');
  });

  it('an invalid form names the fields Discord refused', async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    const error = await failure(
      api.createMessage(token, channel.id, { content: 'z'.repeat(2001) }, [], 5_000),
    );
    expect(error).toMatchObject({
      status: 400,
      code: 50035,
      description: 'Invalid Form Body (content: Must be 2000 or fewer in length.)',
    });
    expect(toDeliveryError(error).failure).toBe('rejected');
  });

  it('a missing permission is a refusal for good, not a token to reconnect', async () => {
    const token = discord.addBot();
    const channel = discord.addChannel({ missingPermissions: true });
    const error = await failure(api.createMessage(token, channel.id, { content: 'z' }, [], 5_000));
    expect(error).toMatchObject({ status: 403, code: 50013, description: 'Missing Permissions' });
    expect(toDeliveryError(error)).toMatchObject({
      failure: 'rejected',
      errorCode: 'discord_rejected',
    });
  });

  it('an outage page (5xx, not JSON) is transient', async () => {
    const token = discord.addBot();
    discord.script('getCurrentUser', { status: 502 });
    const error = await failure(api.getCurrentUser(token));
    expect(error).toMatchObject({ status: 502, description: 'Unreadable answer (HTTP 502)' });
    expect(toDeliveryError(error).failure).toBe('transient');
  });

  it('a refused connection never reached Discord: transient', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(client(`http://127.0.0.1:${port}/api/v10`).getCurrentUser('t'));
    expect(error).toBeInstanceOf(DiscordTransportError);
    expect(error).toMatchObject({
      sent: false,
      message: 'Discord getCurrentUser failed: ECONNREFUSED',
    });
    expect(toDeliveryError(error).failure).toBe('transient');
  });

  it('no answer in time: unconfirmed, and a dropped connection after the message too', async () => {
    const token = discord.addBot();
    const channel = discord.addChannel();
    discord.script('createMessage', { hang: true }, { afterCreate: 'drop' });
    const timedOut = await failure(api.createMessage(token, channel.id, { content: 'a' }, [], 200));
    expect(timedOut).toMatchObject({
      sent: true,
      message: 'Discord createMessage failed: TimeoutError',
    });
    expect(toDeliveryError(timedOut).failure).toBe('unconfirmed');
    const body = { content: 'b', nonce: 'drop-0', enforce_nonce: true };
    const dropped = await failure(api.createMessage(token, channel.id, body, [], 5_000));
    expect(dropped).toBeInstanceOf(DiscordTransportError);
    expect(toDeliveryError(dropped).failure).toBe('unconfirmed');
    // Tried again with its nonce, the send finds the message the dropped one made.
    const made = discord.messagesIn(channel.id);
    expect(made).toHaveLength(1);
    expect((await api.createMessage(token, channel.id, body, [], 5_000)).id).toBe(made[0].id);
    expect(discord.messagesIn(channel.id)).toHaveLength(1);
  });
});
