import { TelegramApiError, TelegramTransportError } from './telegram-bot-api';
import type { OutgoingMedia } from '../platform';
import { TELEGRAM_CAPTION_LIMIT, TelegramPublisher, toDeliveryError } from './telegram-publisher';

const medium = (name: string, type: 'image' | 'video' = 'image'): OutgoingMedia => ({
  type,
  mimeType: type === 'image' ? 'image/png' : 'video/mp4',
  filename: name,
  altText: null,
  storagePath: `projects/1/2026/11/${name}`,
  sizeBytes: 10,
});

describe('TelegramPublisher.plan', () => {
  const plan = (text: string, media: OutgoingMedia[]) =>
    TelegramPublisher.prototype.plan.call({}, text, media);

  it('text alone is one sendMessage', () => {
    expect(plan('hi', [])).toEqual([{ kind: 'text', text: 'hi', media: [], cost: 1 }]);
  });

  it('one medium carries the text as caption', () => {
    const [a] = [medium('a.png')];
    expect(plan('hi', [a])).toEqual([{ kind: 'single', text: 'hi', media: [a], cost: 1 }]);
  });

  it('2..10 media are one album with the caption on it, counted per medium', () => {
    const media = [medium('a.png'), medium('b.mp4', 'video'), medium('c.png')];
    expect(plan('hi', media)).toEqual([{ kind: 'album', text: 'hi', media, cost: 3 }]);
  });

  it('text longer than a caption goes as its own message after the media', () => {
    const text = 'z'.repeat(TELEGRAM_CAPTION_LIMIT + 1);
    const media = [medium('a.png')];
    expect(plan(text, media)).toEqual([
      { kind: 'single', text: null, media, cost: 1 },
      { kind: 'text', text, media: [], cost: 1 },
    ]);
  });

  it('a caption of exactly 1024 characters stays a caption; no text means no caption', () => {
    const text = 'y'.repeat(TELEGRAM_CAPTION_LIMIT);
    expect(plan(text, [medium('a.png')])).toHaveLength(1);
    expect(plan('', [medium('a.png')])[0].text).toBeNull();
  });
});

describe('toDeliveryError', () => {
  it.each([
    [new TelegramApiError(429, 'Too Many Requests', 7), 'rate_limited', 7000],
    [new TelegramApiError(401, 'Unauthorized'), 'unauthorized', null],
    [new TelegramApiError(403, 'Forbidden: bot was kicked'), 'unauthorized', null],
    [new TelegramApiError(400, 'Bad Request: chat not found'), 'channel_gone', null],
    [new TelegramApiError(400, 'Bad Request: message text is empty'), 'rejected', null],
    [new TelegramApiError(500, 'Internal'), 'transient', null],
    [new TelegramApiError(502, 'Bad Gateway'), 'transient', null],
    [new TelegramTransportError('refused', false), 'transient', null],
    [new TelegramTransportError('timed out', true), 'unconfirmed', null],
  ])('%s → %s', (error, failure, retryAfterMs) => {
    const mapped = toDeliveryError(error);
    expect(mapped.failure).toBe(failure);
    expect(mapped.retryAfterMs).toBe(retryAfterMs);
    if (failure === 'rejected' || failure === 'channel_gone')
      expect(mapped.errorCode).toBe('telegram_rejected');
  });
});
