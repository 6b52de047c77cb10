import { ConfigError, loadConfig } from '../../../infrastructure/config/config';
import { telegramSettings } from './telegram-settings';

const base = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/herald',
  APP_SECRET: 'z'.repeat(32),
};

describe("Telegram's settings, validated with the rest of the configuration", () => {
  it('applies the documented defaults', () => {
    expect(telegramSettings(loadConfig(base))).toEqual({
      apiBaseUrl: 'https://api.telegram.org',
      botMessagesPerSecond: 30,
      chatMessagesPerMinute: 20,
    });
  });

  it('reads every variable it is given', () => {
    const config = loadConfig({
      ...base,
      TELEGRAM_API_BASE_URL: 'http://127.0.0.1:8081/',
      TELEGRAM_BOT_MESSAGES_PER_SECOND: '5',
      TELEGRAM_CHAT_MESSAGES_PER_MINUTE: '60',
    });
    expect(telegramSettings(config)).toEqual({
      apiBaseUrl: 'http://127.0.0.1:8081',
      botMessagesPerSecond: 5,
      chatMessagesPerMinute: 60,
    });
  });

  it('reports a bad value with the others, naming the variable', () => {
    try {
      loadConfig({ ...base, PORT: 'z', TELEGRAM_BOT_MESSAGES_PER_SECOND: '0' });
      throw new Error('loadConfig accepted a bad value');
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'PORT must be a whole number from 0 to 65535',
        'TELEGRAM_BOT_MESSAGES_PER_SECOND must be a whole number from 1 to 1000000',
      ]);
    }
  });

  it('reads the send time-out under its earlier name when PUBLICATION_SEND_TIMEOUT_MS is unset', () => {
    const earlier = loadConfig({ ...base, TELEGRAM_SEND_TIMEOUT_MS: '700' });
    expect(earlier.publication.sendTimeoutMs).toBe(700);
    expect(earlier.notices).toEqual([
      'TELEGRAM_SEND_TIMEOUT_MS is deprecated: set PUBLICATION_SEND_TIMEOUT_MS instead',
    ]);

    const both = loadConfig({
      ...base,
      PUBLICATION_SEND_TIMEOUT_MS: '900',
      TELEGRAM_SEND_TIMEOUT_MS: '700',
    });
    expect(both.publication.sendTimeoutMs).toBe(900);
    expect(both.notices).toEqual([]);
    expect(loadConfig(base).publication.sendTimeoutMs).toBe(30_000);

    expect(() => loadConfig({ ...base, TELEGRAM_SEND_TIMEOUT_MS: '5' })).toThrow(
      'TELEGRAM_SEND_TIMEOUT_MS must be a whole number from 100 to 600000',
    );
  });
});
