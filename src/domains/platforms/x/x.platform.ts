import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { XConnector } from './x-connector';
import { XPacing } from './x-pacing';
import { XPublisher } from './x-publisher';
import { X_LIMITS, xTextLength } from './x-text';

@Injectable()
export class XPlatform implements Platform {
  readonly name = 'x';
  readonly displayName = 'X';
  readonly limits = X_LIMITS;
  readonly replies: ReplyMode = 'chain';
  readonly accountLimits = false;
  /** X refuses a retry's duplicate text, and the post the first try made is then found. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: XPublisher,
    readonly pacing: XPacing,
    readonly connector: XConnector,
  ) {}

  measureText(text: string): number {
    return xTextLength(text);
  }

  channelUrl(channel: PlatformChannel): string | null {
    return channel.username ? `https://x.com/${channel.username}` : null;
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return channel.username ? `https://x.com/${channel.username}/status/${messageId}` : null;
  }
}
