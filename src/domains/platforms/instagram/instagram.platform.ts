import { Injectable } from '@nestjs/common';
import type { MediaToCheck, Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { InstagramConnector } from './instagram-connector';
import { INSTAGRAM_LIMITS, instagramMediaProblem, instagramProfileUrl } from './instagram-limits';
import { InstagramPacing } from './instagram-pacing';
import { InstagramPublisher } from './instagram-publisher';

@Injectable()
export class InstagramPlatform implements Platform {
  readonly name = 'instagram';
  readonly displayName = 'Instagram';
  readonly limits = INSTAGRAM_LIMITS;
  readonly accountLimits = false;
  readonly replies: ReplyMode = 'first_comment';
  /** A kept container is read before any second publication: an unknown outcome never doubles. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: InstagramPublisher,
    readonly pacing: InstagramPacing,
    readonly connector: InstagramConnector,
  ) {}

  measureText(text: string): number {
    return text.length;
  }

  mediaProblem(media: readonly MediaToCheck[]): string | null {
    return instagramMediaProblem(media);
  }

  channelUrl(channel: PlatformChannel): string | null {
    if (channel.url) return channel.url;
    return channel.username ? instagramProfileUrl(channel.username) : null;
  }

  messageUrl(): string | null {
    return null;
  }
}
