import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { BlueskyConnector } from './bluesky-connector';
import { BlueskyPacing } from './bluesky-pacing';
import { BlueskyPublisher } from './bluesky-publisher';
import { BLUESKY_LIMITS, blueskyChannelUrl, blueskyPostUrl, graphemeLength } from './bluesky-text';

/** Bluesky behind the platform interfaces. */
@Injectable()
export class BlueskyPlatform implements Platform {
  readonly name = 'bluesky';
  readonly displayName = 'Bluesky';
  readonly replies: ReplyMode = 'chain';
  readonly limits = BLUESKY_LIMITS;
  readonly accountLimits = false;
  /** A record key chosen before the send: a try after an unknown outcome reads it first. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: BlueskyPublisher,
    readonly pacing: BlueskyPacing,
    readonly connector: BlueskyConnector,
  ) {}

  measureText(text: string): number {
    return graphemeLength(text);
  }

  channelUrl(channel: PlatformChannel): string | null {
    return channel.url ?? blueskyChannelUrl(channel);
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return blueskyPostUrl(channel, messageId);
  }
}
