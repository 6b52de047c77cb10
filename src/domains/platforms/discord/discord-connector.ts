import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ChannelType, type APIChannel, type APIUser } from 'discord-api-types/v10';
import { AppError } from '../../../http/errors/error-codes';
import { platformRateLimited } from '../platform-rate-limit';
import type {
  ConnectedAccount,
  ConnectFields,
  DemoAccount,
  PlatformConnector,
  PlatformIdentity,
} from '../platform';
import { readFields } from '../connect-fields';
import { DISCORD_CHANNELS, DISCORD_CONNECT } from './discord-connect';
import { DiscordApi, DiscordApiError, DiscordTransportError } from './discord-api';
import { discordChannelUrl } from './discord-links';

const POSTABLE_CHANNELS: readonly number[] = [ChannelType.GuildText, ChannelType.GuildAnnouncement];

@Injectable()
export class DiscordConnector implements PlatformConnector {
  readonly platform = 'discord';
  readonly displayName = 'Discord';

  constructor(private readonly api: DiscordApi) {}

  /** Checked with GET /users/@me; the token itself is what the account keeps. */
  async connect(fields: ConnectFields): Promise<ConnectedAccount> {
    const botToken = readFields(fields, DISCORD_CONNECT.fields, this.displayName)
      .bot_token as string;
    const bot = await this.check(() => this.api.getCurrentUser(botToken));
    return { id: bot.id, title: botTitle(bot), username: bot.username, secret: botToken };
  }

  /** A text or announcement channel of a server the bot is in. */
  async addChannel(botToken: string, fields: ConnectFields): Promise<PlatformIdentity> {
    const channelId = readFields(fields, DISCORD_CHANNELS.fields, this.displayName)
      .channel_id as string;
    const channel = await this.check(() => this.api.getChannel(botToken, channelId));
    const guildId = 'guild_id' in channel ? channel.guild_id : undefined;
    if (!POSTABLE_CHANNELS.includes(channel.type) || !guildId) {
      throw new AppError(
        'channel_not_supported',
        `Discord channel ${channelId} is ${channelKind(channel)}; Herald posts to text and announcement channels only`,
      );
    }
    return {
      id: channel.id,
      title: channel.name ?? channel.id,
      username: null,
      url: discordChannelUrl(guildId, channel.id),
    };
  }

  demo(): DemoAccount {
    const id = '1100000000000000001';
    const token = [
      Buffer.from(id).toString('base64url'),
      randomBytes(4).toString('base64url'),
      randomBytes(27).toString('base64url'),
    ].join('.');
    const guild = '1100000000000000002';
    const channel = '1100000000000000003';
    return {
      account: { id, title: 'Herald demo bot', username: 'herald-demo', secret: token },
      channels: [
        {
          id: channel,
          title: 'announcements',
          username: null,
          url: discordChannelUrl(guild, channel),
        },
      ],
    };
  }

  /** 429 is a rate limit, another 4xx a refusal with Discord's message, the rest unavailable. */
  private async check<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof DiscordApiError && error.status === 429)
        throw platformRateLimited('Discord', error.retryAfterMs);
      if (error instanceof DiscordApiError && error.status < 500 && error.status !== 429)
        throw new AppError(
          'discord_rejected',
          `Discord rejected the request: ${error.description}`,
        );
      if (error instanceof DiscordApiError || error instanceof DiscordTransportError)
        throw new AppError('discord_unavailable', 'Discord could not be reached; try again later');
      throw error;
    }
  }
}

function botTitle(bot: APIUser): string {
  return bot.global_name || bot.username;
}

function channelKind(channel: APIChannel): string {
  const names: Partial<Record<number, string>> = {
    [ChannelType.DM]: 'a direct message',
    [ChannelType.GroupDM]: 'a group direct message',
    [ChannelType.GuildVoice]: 'a voice channel',
    [ChannelType.GuildCategory]: 'a category',
    [ChannelType.GuildStageVoice]: 'a stage channel',
    [ChannelType.GuildForum]: 'a forum channel',
    [ChannelType.GuildMedia]: 'a media channel',
    [ChannelType.AnnouncementThread]: 'a thread',
    [ChannelType.PublicThread]: 'a thread',
    [ChannelType.PrivateThread]: 'a thread',
  };
  return names[channel.type] ?? `of type ${channel.type}`;
}
