import { Injectable, Optional } from '@nestjs/common';
import { Dispatcher, FormData, request } from 'undici';
import type { AppConfig } from '../../../infrastructure/config/config';
import { InjectConfig } from '../../../infrastructure/config/config.module';
import { Metrics, type PlatformCallOutcome } from '../../../infrastructure/metrics/metrics.service';
import { telegramSettings } from './telegram-settings';

const TELEGRAM_TIMEOUT_MS = 15_000;

export interface TelegramUser {
  id: number;
  is_bot: boolean;
  first_name: string;
  username?: string;
}

export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  first_name?: string;
}

interface TelegramEnvelope<T> {
  ok: boolean;
  result?: T;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

/** Telegram said no; `errorCode` is Telegram's. Never holds the bot token. */
export class TelegramApiError extends Error {
  constructor(
    readonly errorCode: number,
    readonly description: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(`Telegram error ${errorCode}: ${description}`);
  }
}

/** The request may or may not have reached Telegram; `sent`: it was handed to the network. */
export class TelegramTransportError extends Error {
  constructor(
    message: string,
    readonly sent: boolean,
  ) {
    super(message);
  }
}

export type TelegramParams = Record<string, string | number | boolean | undefined>;

@Injectable()
export class TelegramBotApi {
  constructor(
    @InjectConfig() private readonly config: AppConfig,
    @Optional() private readonly metrics?: Metrics,
  ) {}

  getMe(token: string): Promise<TelegramUser> {
    return this.call<TelegramUser>(token, 'getMe', {});
  }

  getChat(token: string, chat: string): Promise<TelegramChat> {
    return this.call<TelegramChat>(token, 'getChat', { chat_id: chat });
  }

  /** Multipart when `body` is a FormData, else JSON. */
  async call<T>(
    token: string,
    method: string,
    params: TelegramParams | FormData,
    timeoutMs = TELEGRAM_TIMEOUT_MS,
  ): Promise<T> {
    const started = performance.now();
    let outcome: PlatformCallOutcome = 'ok';
    try {
      return await this.send<T>(token, method, params, timeoutMs);
    } catch (error) {
      outcome = error instanceof TelegramApiError ? 'api_error' : 'transport_error';
      throw error;
    } finally {
      this.metrics?.platformCall('telegram', method, outcome, (performance.now() - started) / 1000);
    }
  }

  /** A plain timer, cheaper than AbortSignal.timeout() (docs/performance.md#plain-timers). */
  private async send<T>(
    token: string,
    method: string,
    params: TelegramParams | FormData,
    timeoutMs: number,
  ): Promise<T> {
    const abort = new AbortController();
    const timer = setTimeout(
      () => abort.abort(new DOMException('The call timed out', 'TimeoutError')),
      timeoutMs,
    );
    try {
      return await this.sendWithin<T>(token, method, params, abort.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  private async sendWithin<T>(
    token: string,
    method: string,
    params: TelegramParams | FormData,
    signal: AbortSignal,
  ): Promise<T> {
    const url = `${telegramSettings(this.config).apiBaseUrl}/bot${encodeURIComponent(token)}/${method}`;
    const body =
      params instanceof FormData
        ? params
        : JSON.stringify(
            Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)),
          );
    // undici's request(), not fetch(): a fifth of the CPU (docs/performance.md#undici-request).
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'POST',
        body,
        headers: params instanceof FormData ? undefined : { 'content-type': 'application/json' },
        signal,
      });
    } catch (error) {
      const failure = error as { code?: unknown; cause?: { code?: unknown } };
      const code = [failure.code, failure.cause?.code].find((c) => typeof c === 'string') as
        string | undefined;
      // A refused or unresolvable connection never reached Telegram; anything else may have.
      const sent = !['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code ?? '');
      // Never the URL, which holds the token.
      const reason = code ?? (error as Error).name;
      throw new TelegramTransportError(`Telegram ${method} failed: ${reason}`, sent);
    }
    let envelope: TelegramEnvelope<T>;
    try {
      envelope = (await response.body.json()) as TelegramEnvelope<T>;
    } catch {
      response.body.destroy();
      throw new TelegramApiError(
        response.statusCode,
        `Unreadable answer (HTTP ${response.statusCode})`,
      );
    }
    if (!envelope.ok || envelope.result === undefined) {
      throw new TelegramApiError(
        envelope.error_code ?? response.statusCode,
        envelope.description ?? `HTTP ${response.statusCode}`,
        envelope.parameters?.retry_after ?? null,
      );
    }
    return envelope.result;
  }
}
