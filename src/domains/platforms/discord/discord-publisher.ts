import { Inject, Injectable, Optional } from '@nestjs/common';
import type { File } from 'node:buffer';
import type { Readable } from 'node:stream';
import type { RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { STORAGE_DRIVER, type StorageDriver } from '../../../infrastructure/storage/storage-driver';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { openStoredFile } from '../stored-file';
import { DiscordApi, toDeliveryError } from './discord-api';

/** In characters; longer alt text is cut. */
const DISCORD_DESCRIPTION_MAX = 1024;

/** One message; the target's key is an enforced nonce, so a retry gets the first message back. */
@Injectable()
export class DiscordPublisher implements PlatformPublisher {
  readonly platform = 'discord';

  constructor(
    private readonly api: DiscordApi,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  /** One `single` message even with several files (the limits keep it within one). */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const hasText = text.trim().length > 0;
    return [
      {
        kind: media.length === 0 ? 'text' : 'single',
        text: hasText || media.length === 0 ? text : null,
        media,
        cost: 1,
      },
    ];
  }

  async send(token: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const opened: Readable[] = [];
    try {
      const body: RESTPostAPIChannelMessageJSONBody = {
        ...(step.text === null ? {} : { content: step.text }),
        nonce: target.key,
        enforce_nonce: true,
        ...(target.replyTo
          ? {
              message_reference: { message_id: target.replyTo.parent.id, fail_if_not_exists: true },
            }
          : {}),
      };
      const files: File[] = [];
      if (step.media.length > 0) {
        body.attachments = step.media.map((medium, index) => ({
          id: index,
          filename: medium.filename,
          ...(medium.altText
            ? { description: medium.altText.slice(0, DISCORD_DESCRIPTION_MAX) }
            : {}),
        }));
        for (const medium of step.media) files.push(await this.file(medium, opened));
      }
      const message = await this.api.createMessage(
        token,
        target.chatId,
        body,
        files,
        this.config.publication.sendTimeoutMs,
        target.observeRateLimit,
      );
      const id: unknown = message?.id;
      // A success without the message's id is a send of unknown outcome: tried again by its nonce.
      if (typeof id !== 'string' || id === '')
        throw new DeliveryError(
          'unconfirmed',
          'Discord answered success without a message id; the message may or may not have been made',
        );
      return [{ id }];
    } catch (error) {
      throw toDeliveryError(error);
    } finally {
      // A failed request may leave a file unread; never leak its descriptor.
      for (const stream of opened) stream.destroy();
    }
  }

  private file(medium: OutgoingMedia, opened: Readable[]): Promise<File> {
    return openStoredFile(this.storage, medium, opened);
  }
}
