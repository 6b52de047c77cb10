import { DiscordStandIn, DiscordStandInChannel } from '../stand-ins/discord-stand-in';
import { Factory, SignedInUser, TestChannel, TestProject } from './factories';
import { TelegramStandIn } from '../stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../test-app';

/** A channel list item of a Discord channel: its link and the platform's limits too. */
export interface DiscordTestChannel extends TestChannel {
  url: string | null;
  /** The channel as the stand-in knows it (its server among others). */
  discord: DiscordStandInChannel;
}

/**
 * A test app wired to a Discord stand-in (and a Telegram one, for posts that mix platforms), with
 * the generic factory and the steps that connect Discord bots and channels through the HTTP API.
 */
export interface DiscordWorld {
  t: TestApp;
  discord: DiscordStandIn;
  telegram: TelegramStandIn;
  make: Factory;
  /** Connects a bot registered with the stand-in; its account id and token. */
  discordAccount(owner: SignedInUser, project: TestProject): Promise<{ id: number; token: string }>;
  /** Adds a channel (made in the stand-in, text unless told) to the account. */
  discordChannel(
    owner: SignedInUser,
    accountId: number,
    channel?: Partial<DiscordStandInChannel>,
  ): Promise<DiscordTestChannel>;
  close(): Promise<void>;
}

/**
 * `startTestApp` with `DISCORD_API_BASE_URL` and `TELEGRAM_API_BASE_URL` pointed at fresh
 * stand-ins; `env` adds to it. When the app fails to start, the stand-ins are stopped first.
 */
export async function startWithDiscord(env: Record<string, string> = {}): Promise<DiscordWorld> {
  const discord = await new DiscordStandIn().start();
  const telegram = await new TelegramStandIn().start();
  let t: TestApp;
  try {
    t = await startTestApp({
      DISCORD_API_BASE_URL: discord.url,
      TELEGRAM_API_BASE_URL: telegram.url,
      ...env,
    });
  } catch (error) {
    await discord.stop();
    await telegram.stop();
    throw error;
  }
  return {
    t,
    discord,
    telegram,
    make: new Factory(t, telegram),
    async discordAccount(owner, project) {
      const token = discord.addBot();
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, platform: 'discord', bot_token: token })
        .expect(201);
      return { id: (res.body as { id: number }).id, token };
    },
    async discordChannel(owner, accountId, channel = {}) {
      const made = discord.addChannel(channel);
      const res = await t.http
        .post(`/api/accounts/${accountId}/channels`)
        .set('Authorization', owner.auth)
        .send({ channel_id: made.id })
        .expect(201);
      return { ...(res.body as TestChannel & { url: string | null }), discord: made };
    },
    async close() {
      await t.close();
      await discord.stop();
      await telegram.stop();
    },
  };
}
