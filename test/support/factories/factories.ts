import { waitFor } from '../waits';
import { runCli } from '../../../src/operations/cli/commands';
import { fixture } from './media-helpers';
import { DiscordStandIn, DiscordStandInChannel } from '../stand-ins/discord-stand-in';
import { MastodonStandIn } from '../stand-ins/mastodon-stand-in';
import { TelegramStandIn } from '../stand-ins/telegram-stand-in';
import { TestApp } from '../test-app';

export interface SignedInUser {
  id: number;
  email: string;
  name: string;
  token: string;
  /** `Authorization` header value for the application API. */
  auth: string;
}

export interface TestProject {
  id: number;
  name: string;
  timezone: string;
  created_at: string;
}

export interface TestChannel {
  id: string;
  platform: string;
  account_id: number;
  channel_id: string;
  title: string;
  username: string | null;
  needs_reconnect: boolean;
}

/** The stand-ins a factory connects accounts on, by the platform they play. */
export interface PlatformStandIns {
  telegram: TelegramStandIn;
  discord: DiscordStandIn;
  mastodon: MastodonStandIn;
}

export type StandInPlatform = keyof PlatformStandIns;

/** A connected account: Herald's id and the credential the stand-in issued. */
export interface TestAccount {
  id: number;
  token: string;
}

export interface ChannelOptions {
  platform?: 'telegram' | 'discord';
  /** Telegram: the chat's id and title. */
  chatId?: number;
  title?: string;
  /** Discord: the channel as the stand-in makes it (text in a new server unless told). */
  discord?: Partial<DiscordStandInChannel>;
}

let counter = 0;

/** A stand-in's new account, as the fields of `POST /api/accounts` a user would send. */
const CONNECT: { [P in StandInPlatform]: (standIn: PlatformStandIns[P]) => Connect } = {
  telegram: (telegram) => botToken(telegram.addBot()),
  discord: (discord) => botToken(discord.addBot()),
  mastodon: (instance) => {
    const { token } = instance.addAccount();
    return { token, fields: { instance_url: instance.url, access_token: token } };
  },
};

/** A stand-in's new channel, as the body of `POST /api/accounts/:id/channels`. */
const ADD_CHANNEL: {
  [P in 'telegram' | 'discord']: (standIn: PlatformStandIns[P], options: ChannelOptions) => object;
} = {
  telegram: (telegram, { chatId = -1001000000000 - ++counter, title = `Channel ${counter}` }) => {
    telegram.addChat({
      id: chatId,
      type: 'channel',
      title,
      username: `chan_${counter}_${process.pid}`,
    });
    return { chat: String(chatId) };
  },
  discord: (discord, options) => ({ channel_id: discord.addChannel(options.discord).id }),
};

interface Connect {
  token: string;
  fields: Record<string, string>;
}

function botToken(token: string): Connect {
  return { token, fields: { bot_token: token } };
}

/**
 * Builds test data through the paths users take: the HTTP API and the CLI. Every method asserts
 * the status it expects, so a broken step fails where it happens.
 */
export class Factory {
  private readonly standIns: Partial<PlatformStandIns>;

  constructor(
    private readonly t: TestApp,
    telegram?: TelegramStandIn,
    others: Partial<Omit<PlatformStandIns, 'telegram'>> = {},
  ) {
    this.standIns = { telegram, ...others };
  }

  async user(name = 'Test user'): Promise<SignedInUser> {
    const email = `user${++counter}.${process.pid}@example.com`;
    const res = await this.t.http
      .post('/api/auth/register')
      .send({ email, password: 'correct horse battery', name })
      .expect(201);
    const body = res.body as { token: string; user: { id: number; email: string; name: string } };
    return { ...body.user, token: body.token, auth: `Bearer ${body.token}` };
  }

  /** A user made administrator (may create API keys) through `npm run cli -- grant-admin`. */
  admin(name = 'Admin user'): Promise<SignedInUser> {
    return this.userWithRole('grant-admin', name);
  }

  /** A user made operator (runs the queue dashboard) through `npm run cli -- grant-operator`. */
  operator(name = 'Operator'): Promise<SignedInUser> {
    return this.userWithRole('grant-operator', name);
  }

  private async userWithRole(command: string, name: string): Promise<SignedInUser> {
    const user = await this.user(name);
    const lines: string[] = [];
    const code = await runCli([command, user.email], this.t.config, {
      out: (line) => lines.push(line),
    });
    if (code !== 0) throw new Error(`${command} failed: ${lines.join('\n')}`);
    return user;
  }

  async project(
    owner: SignedInUser,
    name = 'Test project',
    timezone = 'Europe/Moscow',
  ): Promise<TestProject> {
    const res = await this.t.http
      .post('/api/projects')
      .set('Authorization', owner.auth)
      .send({ name, timezone })
      .expect(201);
    return res.body as TestProject;
  }

  /** An administrator with a project of their own and an API key with every scope. */
  async owner(
    projectName = 'Test project',
  ): Promise<{ owner: SignedInUser; project: TestProject; key: string }> {
    const owner = await this.admin('Owner');
    const project = await this.project(owner, projectName);
    return { owner, project, key: await this.apiKey(owner) };
  }

  /** `owner()` with a Telegram bot connected to the project and `count` channels of that bot. */
  async ownerWithChannels(projectName: string, count = 1) {
    const { owner, project, key } = await this.owner(projectName);
    const account = await this.telegramAccount(owner, project);
    const channels: TestChannel[] = [];
    for (let i = 0; i < count; i++) channels.push(await this.channel(owner, account.id));
    return { owner, project, key, account, channels };
  }

  /** Uploads a fixture of shared/fixtures/media through the public API; its media id. */
  async media(project: TestProject, key: string, name: string): Promise<number> {
    const res = await this.t.http
      .post(`/api/public/v1/projects/${project.id}/media`)
      .set('Authorization', `Bearer ${key}`)
      .attach('files', fixture(name), name)
      .expect(201);
    return (res.body as { items: { id: number }[] }).items[0].id;
  }

  /** Creates an API key for an administrator; returns the full key. */
  async apiKey(
    admin: SignedInUser,
    body: { scopes?: string[]; expires_at?: string; name?: string; mode?: 'live' | 'test' } = {},
  ): Promise<string> {
    const res = await this.t.http
      .post('/api/api-keys')
      .set('Authorization', admin.auth)
      .send({ name: 'test key', ...body })
      .expect(201);
    return (res.body as { key: string }).key;
  }

  /** Connects an account the platform's stand-in (or `standIn`) knows, as a user does. */
  async account<P extends StandInPlatform = 'telegram'>(
    owner: SignedInUser,
    project: TestProject,
    options: { platform?: P; standIn?: PlatformStandIns[P] } = {},
  ): Promise<TestAccount> {
    const platform = options.platform ?? ('telegram' as P);
    const { token, fields } = CONNECT[platform](options.standIn ?? this.standIn(platform));
    const res = await this.t.http
      .post('/api/accounts')
      .set('Authorization', owner.auth)
      .send({ project_id: project.id, platform, ...fields })
      .expect(201);
    return { id: (res.body as { id: number }).id, token };
  }

  telegramAccount(owner: SignedInUser, project: TestProject): Promise<TestAccount> {
    return this.account(owner, project, { platform: 'telegram' });
  }

  /** Adds a channel the platform's stand-in knows (a Telegram chat unless told) to the account. */
  async channel<C extends TestChannel = TestChannel>(
    owner: SignedInUser,
    accountId: number,
    options: ChannelOptions = {},
  ): Promise<C> {
    const res = await this.t.http
      .post(`/api/accounts/${accountId}/channels`)
      .set('Authorization', owner.auth)
      .send(this.channelBody(options.platform ?? 'telegram', options))
      .expect(201);
    return res.body as C;
  }

  private channelBody<P extends keyof typeof ADD_CHANNEL>(platform: P, options: ChannelOptions) {
    return ADD_CHANNEL[platform](this.standIn(platform), options);
  }

  /**
   * Has Telegram refuse the account's token as it refuses a revoked one: the stand-in answers the
   * next send 401, a post to `channel` goes out through the public API, and the worker flags the
   * account `needs_reconnect`. The stand-in's record of calls is then cleared, so the refused send
   * is not counted as the test's. Needs an app with a worker.
   */
  async refuseAccount(project: TestProject, key: string, channel: TestChannel): Promise<void> {
    this.standIn('telegram').script('sendMessage', { status: 401, description: 'Unauthorized' });
    await this.t.http
      .post(`/api/public/v1/projects/${project.id}/posts`)
      .set('Authorization', `Bearer ${key}`)
      .send({ text: 'Refused', targets: [{ channel_ref: channel.id }], publish_now: true })
      .expect(201);
    await waitFor(async () => {
      const res = await this.t.http
        .get(`/api/public/v1/projects/${project.id}/channels`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      const items = (res.body as { items: { id: string; needs_reconnect: boolean }[] }).items;
      return items.some((c) => c.id === channel.id && c.needs_reconnect);
    }, 10_000);
    this.standIn('telegram').reset();
  }

  /** The channel's row id (`post_targets.channel_id`), which the API shows only as its ref. */
  async channelRowId(channel: TestChannel): Promise<number> {
    const { rows } = await this.t.db.query<{ id: number }>(
      'SELECT id FROM channels WHERE platform = $1 AND account_id = $2 AND channel_id = $3',
      [channel.platform, channel.account_id, channel.channel_id],
    );
    return rows[0].id;
  }

  private standIn<P extends StandInPlatform>(platform: P): PlatformStandIns[P] {
    const standIn = this.standIns[platform];
    if (!standIn) throw new Error(`This factory was built without a ${platform} stand-in`);
    return standIn as PlatformStandIns[P];
  }
}
