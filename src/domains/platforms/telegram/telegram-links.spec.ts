import { TELEGRAM_LIMITS, telegramChannelUrl, telegramMessageUrl } from './telegram-links';

describe('Telegram links', () => {
  it('links a public chat and its messages by username', () => {
    const channel = { channelId: '-1001234567890', username: 'herald_news' };
    expect(telegramChannelUrl(channel)).toBe('https://t.me/herald_news');
    expect(telegramMessageUrl(channel, '42')).toBe('https://t.me/herald_news/42');
  });

  it('links a private supergroup or channel by its id without -100, and the chat itself not at all', () => {
    const channel = { channelId: '-1001234567890', username: null };
    expect(telegramChannelUrl(channel)).toBeNull();
    expect(telegramMessageUrl(channel, '7')).toBe('https://t.me/c/1234567890/7');
  });

  it('gives no link in a basic group or a private chat', () => {
    expect(telegramMessageUrl({ channelId: '-123456', username: null }, '7')).toBeNull();
    expect(telegramMessageUrl({ channelId: '123456', username: null }, '7')).toBeNull();
    expect(telegramMessageUrl({ channelId: '-100', username: null }, '7')).toBeNull();
  });

  it('states the limits Herald enforces', () => {
    expect(TELEGRAM_LIMITS).toEqual({
      text_max: 4096,
      text_unit: 'utf16',
      media_max: 10,
      media_kinds: ['image', 'video'],
      media_max_bytes: { image: 52_428_800, video: 52_428_800 },
    });
  });
});
