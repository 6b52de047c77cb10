import { DeliveryError, type OutgoingMedia } from '../platform';
import {
  SimulatedPublisher,
  SIMULATED_FAILURES,
  simulatedMessageUrl,
} from '../simulated-publisher';
import { TelegramPublisher } from './telegram-publisher';
import type { AppConfig } from '../../../infrastructure/config/config';
import type { TelegramBotApi } from './telegram-bot-api';
import { UNPACED } from '../rate-limit-report';

const photo = (n: number): OutgoingMedia => ({
  type: 'image',
  mimeType: 'image/png',
  filename: `${n}.png`,
  altText: null,
  storagePath: `p/${n}.png`,
  sizeBytes: 10,
});

describe('SimulatedPublisher: test posts never reach the platform', () => {
  // The real Telegram publisher, never asked to send: its api throws if anything reaches it.
  const api = new Proxy({} as TelegramBotApi, {
    get: () => {
      throw new Error('the simulated publisher reached the Telegram API');
    },
  });
  const telegram = new TelegramPublisher(api, {} as AppConfig);
  const simulated = new SimulatedPublisher(telegram);

  it('plans as the platform does: the same steps, each making as many messages as it counts for', () => {
    const text = 'z'.repeat(2000); // longer than a caption: album, then the text on its own
    const media = [photo(1), photo(2), photo(3)];
    const real = telegram.plan(text, media);
    const planned = simulated.plan(text, media);
    expect(simulated.platform).toBe('telegram');
    expect(planned.map(({ kind, text: t, media: m }) => ({ kind, t, m }))).toEqual(
      real.map(({ kind, text: t, media: m }) => ({ kind, t, m })),
    );
    expect(real.map((s) => s.cost)).toEqual([3, 1]);
    expect(planned.map((s) => [s.cost, s.messages])).toEqual([
      [3, 3],
      [1, 1],
    ]);
  });

  const TARGET = {
    accountId: 1,
    chatId: '-100',
    key: '3n36hjtiu3ltt-1-0',
    tid: '3n36hjtiu3ltt',
    retry: false,
    progress: null,
    keep: () => Promise.resolve(),
    observeRateLimit: UNPACED,
  };

  it('answers as many made-up message ids as the platform would, without a connection', async () => {
    const [album, rest] = simulated.plan('y'.repeat(2000), [photo(1), photo(2)]);
    const ids = await simulated.send('token', TARGET, album);
    expect(ids).toHaveLength(2);
    expect(ids[1].id).toBe(String(Number(ids[0].id) + 1));
    expect(await simulated.send('token', TARGET, rest)).toHaveLength(1);
  });

  it('links a simulated message under example.invalid', () => {
    const channel = { channelId: '-1001234567890', username: 'herald_news' };
    expect(simulatedMessageUrl('telegram', channel, '42')).toBe(
      'https://example.invalid/telegram/-1001234567890/42',
    );
  });

  it.each(Object.entries(SIMULATED_FAILURES))(
    '[simulate:%s] fails the send as a %s failure',
    async (code, failure) => {
      const [step] = simulated.plan(`Hello [simulate:${code}]`, []);
      const error = await simulated.send('token', TARGET, step).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DeliveryError);
      expect(error).toMatchObject({ failure, message: expect.stringContaining(code) });
    },
  );

  it('ignores markers it does not know, and account_needs_reconnect (it would flag a real account)', async () => {
    for (const text of [
      '[simulate:account_needs_reconnect]',
      '[simulate:nonsense]',
      '[simulate]',
    ]) {
      const [step] = simulated.plan(text, []);
      expect(await simulated.send('token', TARGET, step)).toHaveLength(1);
    }
  });
});
