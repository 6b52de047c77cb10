import { DiscordStandIn, DiscordStandInChannel } from '../stand-ins/discord-stand-in';
import { Factory, SignedInUser, TestAccount, TestChannel, TestProject } from './factories';
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
  discordAccount(owner: SignedInUser, project: TestProject): Promise<TestAccount>;
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
  const make = new Factory(t, telegram, { discord });
  return {
    t,
    discord,
    telegram,
    make,
    discordAccount: (owner, project) => make.account(owner, project, { platform: 'discord' }),
    async discordChannel(owner, accountId, channel = {}) {
      const added = await make.channel<TestChannel & { url: string | null }>(owner, accountId, {
        platform: 'discord',
        discord: channel,
      });
      return { ...added, discord: discord.channelById(added.channel_id) };
    },
    async close() {
      await t.close();
      await discord.stop();
      await telegram.stop();
    },
  };
}
