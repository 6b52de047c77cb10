import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { LinkedInConnector } from './linkedin-connector';
import { LinkedInPacing } from './linkedin-pacing';
import { LinkedInPublisher } from './linkedin-publisher';
import { LINKEDIN_LIMITS } from './linkedin-text';

@Injectable()
export class LinkedInPlatform implements Platform {
  readonly name = 'linkedin';
  readonly displayName = 'LinkedIn';
  readonly limits = LINKEDIN_LIMITS;
  /** A thread's one item is the post's first comment. */
  readonly replies: ReplyMode = 'first_comment';
  readonly accountLimits = false;
  /** LinkedIn refuses a retry's duplicate content, naming the post the first try made. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: LinkedInPublisher,
    readonly pacing: LinkedInPacing,
    readonly connector: LinkedInConnector,
  ) {}

  measureText(text: string): number {
    return text.length;
  }

  channelUrl(channel: PlatformChannel): string | null {
    return channel.url ?? null;
  }

  /** A comment's URN names the post it is on: `urn:li:comment:(<post urn>,<id>)`. */
  messageUrl(_channel: PlatformChannel, messageId: string): string | null {
    const post = /^urn:li:comment:\((urn:li:[a-zA-Z]+:\d+),\d+\)$/.exec(messageId)?.[1];
    if (post)
      return `https://www.linkedin.com/feed/update/${post}?commentUrn=${encodeURIComponent(messageId)}`;
    return `https://www.linkedin.com/feed/update/${messageId}`;
  }
}
