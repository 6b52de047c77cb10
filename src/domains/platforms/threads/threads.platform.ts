import { Injectable } from '@nestjs/common';
import type { Platform, ReplyMode } from '../platform';
import type { PlatformChannel } from '../platform-answers';
import { ThreadsConnector } from './threads-connector';
import {
  THREADS_LIMITS,
  threadsChannelUrl,
  threadsLinks,
  threadsTextLength,
} from './threads-limits';
import { ThreadsPacing } from './threads-pacing';
import { ThreadsPublisher } from './threads-publisher';

@Injectable()
export class ThreadsPlatform implements Platform {
  readonly name = 'threads';
  readonly displayName = 'Threads';
  readonly limits = THREADS_LIMITS;
  readonly accountLimits = false;
  readonly replies: ReplyMode = 'chain';
  /** A kept container is read before any second publication: an unknown outcome never doubles. */
  readonly confirmsByKey = true;

  constructor(
    readonly publisher: ThreadsPublisher,
    readonly pacing: ThreadsPacing,
    readonly connector: ThreadsConnector,
  ) {}

  measureText(text: string): number {
    return threadsTextLength(text);
  }

  links(text: string): string[] {
    return threadsLinks(text);
  }

  channelUrl(channel: PlatformChannel): string | null {
    return threadsChannelUrl(channel);
  }

  messageUrl(): string | null {
    return null;
  }
}
