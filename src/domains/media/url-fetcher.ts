import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { rootCertificates } from 'node:tls';
import { Readable, Transform } from 'node:stream';
import { Agent, errors, request } from 'undici';
import type { AppConfig } from '../../infrastructure/config/config';
import { InjectConfig } from '../../infrastructure/config/config.module';
import { AppError } from '../../http/errors/error-codes';
import {
  HostAdmission,
  parseOutboundUrl,
  pinnedLookup,
  type AddressPins,
} from '../../infrastructure/outbound/pinned-address';
import { MAX_MEDIA_BYTES } from './media-kinds';
import { fileTooLarge } from './media-sniffer';

export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Herald-Media-Fetcher/1';

const logger = new Logger('UrlFetcher');

/** PEM certificates trusted on top of the system's; not provided in the app. */
export const FETCH_EXTRA_CA = Symbol('FETCH_EXTRA_CA');

export interface FetchedResource {
  /** Errors with `download_timeout` or `file_too_large` when the download's limits hit. */
  body: Readable;
  /** After redirects. */
  finalUrl: URL;
}

/** Every hop's host checked and pinned (docs/api-rules.md#outbound-addresses); one deadline. */
@Injectable()
export class UrlFetcher {
  private readonly timeoutMs: number;

  constructor(
    @InjectConfig() config: AppConfig,
    private readonly hosts: HostAdmission,
    @Optional() @Inject(FETCH_EXTRA_CA) private readonly extraCa?: string,
  ) {
    this.timeoutMs = config.mediaFetchTimeoutMs;
  }

  async fetch(rawUrl: string): Promise<FetchedResource> {
    const deadline = new Deadline(this.timeoutMs);
    const pins: AddressPins = new Map();
    const agent = new Agent({
      connect: {
        lookup: pinnedLookup(pins),
        timeout: this.timeoutMs,
        ...(this.extraCa ? { ca: [...rootCertificates, this.extraCa] } : {}),
      },
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
    const release = () => {
      deadline.clear();
      agent.destroy().catch(() => undefined);
    };
    try {
      let url = parseOutboundUrl(rawUrl, 'be downloaded');
      for (let redirects = 0; ; redirects++) {
        await deadline.race(this.admit(url, pins));
        const response = await deadline.race(
          request(url, {
            dispatcher: agent,
            method: 'GET',
            signal: deadline.signal,
            headers: { 'user-agent': USER_AGENT, 'accept-encoding': 'identity', accept: '*/*' },
          }),
        );
        const { statusCode, headers, body } = response;
        if (REDIRECT_STATUSES.has(statusCode)) {
          discard(body);
          const location = headerValue(headers.location);
          if (!location)
            throw downloadFailed(`The server answered ${statusCode} without a Location`);
          if (redirects >= MAX_REDIRECTS) {
            throw downloadFailed(`More than ${MAX_REDIRECTS} redirects`);
          }
          url = parseOutboundUrl(resolveLocation(location, url), 'be downloaded');
          continue;
        }
        if (statusCode < 200 || statusCode > 299) {
          discard(body);
          throw downloadFailed(`The server answered ${statusCode}`);
        }
        const declared = Number(headerValue(headers['content-length']) ?? NaN);
        if (Number.isFinite(declared) && declared > MAX_MEDIA_BYTES) {
          discard(body);
          throw fileTooLarge();
        }
        return { body: guardBody(body, deadline, release), finalUrl: url };
      }
    } catch (error) {
      release();
      throw downloadError(error, deadline);
    }
  }

  private async admit(url: URL, pins: AddressPins): Promise<void> {
    switch (await this.hosts.admit(url, pins)) {
      case 'not_allowed':
        throw urlNotAllowed();
      case 'unresolved':
        throw downloadFailed('The host name could not be resolved');
    }
  }
}

function resolveLocation(location: string, base: URL): string {
  try {
    return new URL(location, base).href;
  } catch {
    throw invalidUrl('The server redirected to an invalid URL');
  }
}

/** Stops past MAX_MEDIA_BYTES or the deadline; keeps an error listener (else destroy crashes). */
function guardBody(body: Readable, deadline: Deadline, release: () => void): Readable {
  let total = 0;
  const guarded = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > MAX_MEDIA_BYTES) callback(fileTooLarge());
      else callback(null, chunk);
    },
  });
  deadline.onExpire(() => guarded.destroy(downloadTimeout()));
  body.on('error', (error) => guarded.destroy(downloadError(error, deadline)));
  guarded.on('close', () => {
    body.destroy();
    release();
  });
  body.pipe(guarded);
  return guarded;
}

/** 504 when a time limit (ours or undici's) noticed first, else 502; never a bare socket error. */
function downloadError(error: unknown, deadline: Deadline): AppError {
  if (
    deadline.expired ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.HeadersTimeoutError
  )
    return downloadTimeout();
  if (error instanceof AppError) return error;
  logger.warn(`Media download failed: ${error instanceof Error ? error.message : error}`);
  return downloadFailed('The URL could not be downloaded');
}

function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** One limit for the whole download, with an abort signal for undici. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly listeners: (() => void)[] = [];
  expired = false;

  constructor(ms: number) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(downloadTimeout());
      for (const listener of this.listeners) listener();
    }, ms);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  onExpire(listener: () => void): void {
    this.listeners.push(listener);
  }

  race<T>(work: Promise<T>): Promise<T> {
    if (this.expired) return Promise.reject(downloadTimeout());
    return new Promise<T>((resolve, reject) => {
      const onExpire = () => reject(downloadTimeout());
      this.listeners.push(onExpire);
      work.then(resolve, reject).finally(() => {
        const index = this.listeners.indexOf(onExpire);
        if (index >= 0) this.listeners.splice(index, 1);
      });
    });
  }

  clear(): void {
    clearTimeout(this.timer);
    this.listeners.length = 0;
  }
}

function invalidUrl(message: string): AppError {
  return new AppError('invalid_url', message);
}

function urlNotAllowed(): AppError {
  return new AppError(
    'url_not_allowed',
    'The URL points to a local or private address, which cannot be downloaded',
  );
}

function downloadFailed(message: string): AppError {
  return new AppError('download_failed', message);
}

function downloadTimeout(): AppError {
  return new AppError('download_timeout', 'The download took longer than allowed');
}
