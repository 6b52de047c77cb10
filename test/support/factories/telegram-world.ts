import { Factory } from './factories';
import { TelegramStandIn } from '../stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../test-app';

/** A test app wired to its own Telegram stand-in, with a factory over both. */
export interface TelegramWorld {
  t: TestApp;
  telegram: TelegramStandIn;
  make: Factory;
  close(): Promise<void>;
}

/**
 * `startTestApp` with `TELEGRAM_API_BASE_URL` pointed at a fresh stand-in; `env` adds to it. When
 * the app fails to start, the stand-in is stopped before the error goes on.
 */
export async function startWithTelegram(env: Record<string, string> = {}): Promise<TelegramWorld> {
  const telegram = await new TelegramStandIn().start();
  let t: TestApp;
  try {
    t = await startTestApp({ TELEGRAM_API_BASE_URL: telegram.url, ...env });
  } catch (error) {
    await telegram.stop();
    throw error;
  }
  return {
    t,
    telegram,
    make: new Factory(t, telegram),
    async close() {
      await t.close();
      await telegram.stop();
    },
  };
}
