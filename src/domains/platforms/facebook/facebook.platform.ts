import { Injectable } from '@nestjs/common';
import type { MediaToCheck, Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { FacebookConnector } from './facebook-connector';
import { FACEBOOK_LIMITS, facebookPostUrl } from './facebook-limits';
import { FacebookPacing } from './facebook-pacing';
import { FacebookPublisher } from './facebook-publisher';

@Injectable()
export class FacebookPlatform implements Platform {
  readonly name = 'facebook';
  readonly displayName = 'Facebook';
  readonly limits = FACEBOOK_LIMITS;
  readonly accountLimits = false;
  readonly replies: ReplyMode = 'first_comment';
  /** Meta takes no idempotency key: an unknown outcome is never sent again. */
  readonly confirmsByKey = false;

  constructor(
    readonly publisher: FacebookPublisher,
    readonly pacing: FacebookPacing,
    readonly connector: FacebookConnector,
  ) {}

  measureText(text: string): number {
    return text.length;
  }

  /** A post holds images, or one video alone. */
  mediaProblem(media: readonly MediaToCheck[]): string | null {
    const videos = media.filter((medium) => medium.type === 'video');
    if (videos.length === 0 || media.length === 1) return null;
    return `Facebook takes up to 10 images or one video alone in a post; this post has ${videos.length} video(s) among ${media.length} media`;
  }

  channelUrl(channel: PlatformChannel): string | null {
    return channel.url ?? facebookPostUrl(channel.channelId);
  }

  messageUrl(_channel: PlatformChannel, messageId: string): string | null {
    return facebookPostUrl(messageId);
  }
}
