import { Inject, Injectable, Optional } from '@nestjs/common';
import { File } from 'node:buffer';
import type { Readable } from 'node:stream';
import { FormData } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { STORAGE_DRIVER, type StorageDriver } from '../../../infrastructure/storage/storage-driver';
import { TelegramApiError, TelegramBotApi, TelegramTransportError } from './telegram-bot-api';
import {
  DeliveryError,
  type DeliveryStep,
  type OutgoingMedia,
  type PlatformMessage,
  type PlatformPublisher,
  type SendTarget,
} from '../platform';
import { openStoredFile } from '../stored-file';

/** Longer text goes as its own message after the media. */
export const TELEGRAM_CAPTION_LIMIT = 1024;

interface TelegramMessage {
  message_id: number;
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

  async send(token: string, target: SendTarget, step: DeliveryStep): Promise<PlatformMessage[]> {
    const chatId = target.chatId;
    // Without allow_sending_without_reply, a parent that is gone is refused, never posted alone.
    const reply: Record<string, string> = target.replyTo
      ? { reply_parameters: JSON.stringify({ message_id: Number(target.replyTo.parent.id) }) }
      : {};
    const opened: Readable[] = [];
    try {
      if (step.kind === 'text') {
        const message = await this.call<TelegramMessage>(token, 'sendMessage', {
          chat_id: chatId,
          text: step.text ?? '',
          ...reply,
        });
        return idsOf([message]);
      }
      const form = new FormData();
      form.append('chat_id', chatId);
      if (reply.reply_parameters) form.append('reply_parameters', reply.reply_parameters);
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
        return idsOf([message]);
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
      return idsOf(Array.isArray(messages) ? messages : []);
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

  private file(medium: OutgoingMedia, opened: Readable[]): Promise<File> {
    return openStoredFile(this.storage, medium, opened);
  }
}

/** A success without message ids is a send of unknown outcome, never a delivery. */
function idsOf(messages: TelegramMessage[]): PlatformMessage[] {
  if (messages.length === 0 || !messages.every((m) => Number.isSafeInteger(m?.message_id)))
    throw new DeliveryError(
      'unconfirmed',
      'Telegram answered success without a message id; the message may or may not have been sent',
    );
  return messages.map((m) => ({ id: String(m.message_id) }));
}

export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof TelegramApiError) {
    const what = `Telegram ${error.errorCode}: ${error.description}`;
    // A success Herald cannot read (not JSON, no result) may have made the message.
    if (error.errorCode >= 200 && error.errorCode < 300)
      return new DeliveryError('unconfirmed', `${what}; the message may or may not have been sent`);
    if (error.errorCode === 429)
      return new DeliveryError('rate_limited', what, (error.retryAfterSeconds ?? 1) * 1000);
    if (error.errorCode === 401 || error.errorCode === 403)
      return new DeliveryError('unauthorized', what);
    if (error.errorCode >= 500) return new DeliveryError('transient', what);
    const gone = /chat not found/i.test(error.description);
    return new DeliveryError(gone ? 'channel_gone' : 'rejected', what, null, 'telegram_rejected');
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
