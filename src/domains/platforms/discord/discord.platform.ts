import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { DiscordConnector } from './discord-connector';
import { DISCORD_LIMITS, discordMessageUrl } from './discord-links';
import { DiscordPacing } from './discord-pacing';
import { DiscordPublisher } from './discord-publisher';

@Injectable()
export class DiscordPlatform implements Platform {
  readonly name = 'discord';
  readonly displayName = 'Discord';
  readonly replies: ReplyMode = 'chain';
  readonly limits = DISCORD_LIMITS;
  readonly accountLimits = false;
  /** With enforce_nonce, Discord answers a send tried again with the message it made. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: DiscordPublisher,
    readonly pacing: DiscordPacing,
    readonly connector: DiscordConnector,
  ) {}

  measureText(text: string): number {
    return text.length;
  }

  /** The link stored when the channel was added (it needs the server's id). */
  channelUrl(channel: PlatformChannel): string | null {
    return channel.url ?? null;
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return discordMessageUrl(channel, messageId);
  }
}
