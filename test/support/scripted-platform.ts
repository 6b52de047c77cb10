import {
  REGISTERED_PLATFORMS,
  DeliveryError,
  type DeliveryFailure,
  type DeliveryStep,
  type OutgoingMedia,
  type PacingSlot,
  type Platform,
  type PlatformConnector,
  type PlatformMessage,
  type PlatformPacing,
  type PlatformPublisher,
  type ReplyMode,
  type SendTarget,
  type TargetFailureCode,
} from '../../src/domains/platforms/platform';
import type { PlatformChannel } from '../../src/domains/platforms/platform-answers';
import {
  TELEGRAM_LIMITS,
  telegramChannelUrl,
  telegramMessageUrl,
} from '../../src/domains/platforms/telegram/telegram-links';
import {
  Factory,
  type TestAccount,
  type TestChannel,
  type TestProject,
} from './factories/factories';
import { TelegramStandIn } from './stand-ins/telegram-stand-in';
import { startTestApp, type StartTestAppOptions, type TestApp } from './test-app';

/** What the scripted publisher answers to one send: the messages made, or a failure. */
export type Answer =
  | { messages: PlatformMessage[] }
  | {
      failure: DeliveryFailure;
      message: string;
      retryAfterMs?: number;
      errorCode?: TargetFailureCode;
    };

/** One send as the publisher received it. */
interface Send {
  credentials: string;
  target: SendTarget;
  text: string | null;
}

/** Records every send and answers them from a script; a send past the script is delivered. */
export class ScriptedPublisher implements PlatformPublisher {
  readonly sends: Send[] = [];
  private script: Answer[] = [];
  private nextId = 1000;

  constructor(readonly platform: string) {}

  answer(...answers: Answer[]): void {
    this.script.push(...answers);
  }

  reset(): void {
    this.sends.length = 0;
    this.script = [];
  }

  /** One step per part of the text between `||`, the media on the first. */
  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return text.split('||').map((part, i) => {
      const own = i === 0 ? media : [];
      return { kind: own.length ? 'single' : 'text', text: part, media: own, cost: 1 };
    });
  }

  async send(credentials: string, target: SendTarget, step: DeliveryStep) {
    this.sends.push({ credentials, target, text: step.text });
    const answer = this.script.shift() ?? { messages: [{ id: String(++this.nextId) }] };
    if ('failure' in answer) {
      const { failure, message, retryAfterMs = null, errorCode = null } = answer;
      throw new DeliveryError(failure, message, retryAfterMs, errorCode);
    }
    return answer.messages;
  }
}

/** A pacing that always has room: every slot is now, every send is admitted at once. */
export const ALWAYS_NOW: PlatformPacing = {
  admitSpacingMs: 0,
  reserve: async (): Promise<PacingSlot> => ({ kind: 'booked', waitMs: 0 }),
  admit: async () => 0,
  holdAccount: async () => undefined,
  observe: async () => undefined,
  settle: async () => undefined,
  hadRoom: () => false,
  accountsWithRoom: () => [],
};

/** Accounts are connected through PLATFORM_CONNECTORS, which this test leaves as it is. */
const NO_CONNECTOR: PlatformConnector = {
  platform: 'telegram',
  displayName: 'Telegram',
  connect: () => Promise.reject(new Error('connected through PLATFORM_CONNECTORS')),
  addChannel: () => Promise.reject(new Error('connected through PLATFORM_CONNECTORS')),
  demo: () => {
    throw new Error('not for the demo seed');
  },
};

/**
 * A test platform registered in place of Telegram (the account routes take registered platform
 * names only, so its accounts and channels are connected through the Telegram stand-in). It keeps
 * Telegram's limits and links; what it delivers, and whether it recognises a send tried again
 * with the same key, is the test's to say.
 */
export class ScriptedPlatform implements Platform {
  readonly name = 'telegram';
  readonly displayName = 'Telegram';
  replies: ReplyMode = 'chain';
  readonly limits = TELEGRAM_LIMITS;
  readonly accountLimits = false;
  readonly publisher = new ScriptedPublisher(this.name);
  pacing: PlatformPacing = ALWAYS_NOW;
  readonly connector = NO_CONNECTOR;
  confirmsByKey = false;

  measureText(text: string): number {
    return text.length;
  }

  channelUrl(channel: PlatformChannel): string | null {
    return telegramChannelUrl(channel);
  }

  messageUrl(channel: PlatformChannel, messageId: string): string | null {
    return telegramMessageUrl(channel, messageId);
  }

  listedMessageId(messageId: string): number {
    return Number(messageId);
  }
}

/** A worker-less app (APP_ROLE=api) whose one platform is `platform`, with a channel to post to. */
export interface ScriptedWorld {
  t: TestApp;
  make: Factory;
  project: TestProject;
  key: string;
  account: TestAccount;
  channel: TestChannel;
  close(): Promise<void>;
}

/**
 * Starts the app with `platform` as the only registered platform (its accounts and channels are
 * connected through a Telegram stand-in) and makes an owner, a key and one channel over HTTP.
 */
export async function startWithScriptedPlatform(
  platform: ScriptedPlatform,
  projectName: string,
  options: { env?: Record<string, string>; overrides?: StartTestAppOptions['overrides'] } = {},
): Promise<ScriptedWorld> {
  const telegram = await new TelegramStandIn().start();
  let t: TestApp;
  try {
    t = await startTestApp(
      { TELEGRAM_API_BASE_URL: telegram.url, APP_ROLE: 'api', ...options.env },
      {
        overrides: [
          { provide: REGISTERED_PLATFORMS, useValue: [platform] },
          ...(options.overrides ?? []),
        ],
      },
    );
  } catch (error) {
    await telegram.stop();
    throw error;
  }
  const make = new Factory(t, telegram);
  const made = await make.ownerWithChannels(projectName);
  return {
    t,
    make,
    project: made.project,
    key: made.key,
    account: made.account,
    channel: made.channels[0],
    async close() {
      await t.close();
      await telegram.stop();
    },
  };
}

/** Forgets the previous test's sends and script; the platform cannot confirm by key again. */
export function resetScripted(platform: ScriptedPlatform): void {
  platform.publisher.reset();
  platform.confirmsByKey = false;
}
