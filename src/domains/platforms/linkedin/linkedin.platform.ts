import { Injectable } from '@nestjs/common';
import type { Platform } from '../platform';
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

  messageUrl(_channel: PlatformChannel, messageId: string): string | null {
    return `https://www.linkedin.com/feed/update/${messageId}`;
  }
}
