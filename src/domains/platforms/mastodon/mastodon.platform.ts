import { Injectable } from '@nestjs/common';
import type { MediaToCheck, Platform, ReplyMode } from '../platform';
import type { PlatformChannel, PlatformLimits } from '../platform-answers';
import { MastodonConnector } from './mastodon-connector';
import {
  MASTODON_LIMITS,
  mastodonChannelUrl,
  mastodonMediaProblem,
  mastodonMessageUrl,
} from './mastodon-limits';
import { MastodonPacing } from './mastodon-pacing';
import { MastodonPublisher } from './mastodon-publisher';
import { MASTODON_URL_LENGTH, mastodonTextLength } from './mastodon-text';

@Injectable()
export class MastodonPlatform implements Platform {
  readonly name = 'mastodon';
  readonly displayName = 'Mastodon';
  readonly replies: ReplyMode = 'chain';
  /** What a stock instance takes; an account's own limits are its instance's. */
  readonly limits = MASTODON_LIMITS;
  readonly accountLimits = true;
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: MastodonPublisher,
    readonly pacing: MastodonPacing,
    readonly connector: MastodonConnector,
  ) {}

  measureText(text: string, limits: PlatformLimits): number {
    return mastodonTextLength(text, limits.url_length ?? MASTODON_URL_LENGTH);
  }

  mediaProblem(media: readonly MediaToCheck[]): string | null {
    return mastodonMediaProblem(media);
  }

  channelUrl(channel: PlatformChannel): string | null {
    return mastodonChannelUrl(channel);
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return mastodonMessageUrl(channel, messageId);
  }
}
