import { Inject, Injectable, Optional } from '@nestjs/common';
import { File } from 'node:buffer';
import { Readable } from 'node:stream';
import { FormData } from 'undici';
import type { AppConfig } from '../../config/config';
import { InjectConfig } from '../../config/config.module';
import {
  STORAGE_DRIVER,
  StorageUnavailableError,
  type StorageDriver,
} from '../../storage/storage-driver';
import { TelegramApiError, TelegramBotApi, TelegramTransportError } from './telegram-bot-api';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformPublisher,
} from '../platform';

/** Telegram's caption limit; longer text goes as its own message after the media. */
export const TELEGRAM_CAPTION_LIMIT = 1024;

interface TelegramMessage {
  message_id: number;
}

/** A File whose bytes stream from storage when undici writes the multipart body. */
class StoredFile extends File {
  constructor(
    private readonly source: Readable,
    byteLength: number,
    name: string,
    type: string,
  ) {
    super([], name, { type });
    // undici sizes the multipart body from `size` and then reads `stream()`.
    Object.defineProperty(this, 'size', { value: byteLength });
  }

  override stream(): ReturnType<File['stream']> {
    return Readable.toWeb(this.source) as ReturnType<File['stream']>;
  }
}

/** sendMessage, sendPhoto/sendVideo with caption, sendMediaGroup; files uploaded from storage. */
@Injectable()
export class TelegramPublisher implements PlatformPublisher {
  readonly platform = 'telegram';

  constructor(
    private readonly api: TelegramBotApi,
    @InjectConfig() private readonly config: AppConfig,
    @Optional() @Inject(STORAGE_DRIVER) private readonly storage?: StorageDriver,
  ) {}

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    const hasText = text.trim().length > 0;
    if (media.length === 0) return [{ kind: 'text', text, media: [], cost: 1 }];
    const captioned = hasText && text.length <= TELEGRAM_CAPTION_LIMIT;
    const steps: DeliveryStep[] = [
      {
        kind: media.length === 1 ? 'single' : 'album',
        text: captioned ? text : null,
        media,
        cost: media.length,
      },
    ];
    if (hasText && !captioned) steps.push({ kind: 'text', text, media: [], cost: 1 });
    return steps;
  }

  async send(token: string, chatId: string, step: DeliveryStep): Promise<string[]> {
    const opened: Readable[] = [];
    try {
      if (step.kind === 'text') {
        const message = await this.call<TelegramMessage>(token, 'sendMessage', {
          chat_id: chatId,
          text: step.text ?? '',
        });
        return [String(message.message_id)];
      }
      const form = new FormData();
      form.append('chat_id', chatId);
      if (step.kind === 'single') {
        const [medium] = step.media;
        const field = medium.type === 'video' ? 'video' : 'photo';
        form.append(field, await this.file(medium, opened));
        if (step.text) form.append('caption', step.text);
        const message = await this.call<TelegramMessage>(
          token,
          medium.type === 'video' ? 'sendVideo' : 'sendPhoto',
          form,
        );
        return [String(message.message_id)];
      }
      const items = step.media.map((medium, index) => ({
        type: medium.type === 'video' ? 'video' : 'photo',
        media: `attach://file${index}`,
        ...(index === 0 && step.text ? { caption: step.text } : {}),
      }));
      form.append('media', JSON.stringify(items));
      for (const [index, medium] of step.media.entries())
        form.append(`file${index}`, await this.file(medium, opened));
      const messages = await this.call<TelegramMessage[]>(token, 'sendMediaGroup', form);
      return messages.map((m) => String(m.message_id));
    } catch (error) {
      throw toDeliveryError(error);
    } finally {
      // A failed request may leave a file unread; never leak its descriptor.
      for (const stream of opened) stream.destroy();
    }
  }

  private call<T>(token: string, method: string, params: Record<string, string> | FormData) {
    return this.api.call<T>(token, method, params, this.config.publication.sendTimeoutMs);
  }

  private async file(medium: OutgoingMedia, opened: Readable[]): Promise<File> {
    if (!this.storage)
      throw new DeliveryError('media_unavailable', 'No media storage is configured');
    let stream: Readable;
    try {
      stream = await this.storage.openRead(medium.storagePath);
    } catch (error) {
      if (error instanceof StorageUnavailableError)
        throw new DeliveryError('transient', error.message);
      throw new DeliveryError(
        'media_unavailable',
        `Media file ${medium.filename} is not in storage`,
      );
    }
    opened.push(stream);
    return new StoredFile(stream, medium.sizeBytes, medium.filename, medium.mimeType);
  }
}

/** What a Telegram failure means for the target. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof TelegramApiError) {
    const what = `Telegram ${error.errorCode}: ${error.description}`;
    if (error.errorCode === 429)
      return new DeliveryError('rate_limited', what, (error.retryAfterSeconds ?? 1) * 1000);
    if (error.errorCode === 401 || error.errorCode === 403)
      return new DeliveryError('unauthorized', what);
    if (error.errorCode >= 500) return new DeliveryError('transient', what);
    return new DeliveryError('rejected', what);
  }
  if (error instanceof TelegramTransportError) {
    return error.sent
      ? new DeliveryError(
          'unconfirmed',
          'The send went out but no answer came back; it may or may not have been delivered',
        )
      : new DeliveryError('transient', error.message);
  }
  return new DeliveryError('transient', (error as Error).message ?? 'Unknown error');
}
