import {
  DeliveryError,
  REGISTERED_PLATFORMS,
  type DeliveryFailure,
  type DeliveryStep,
  type OutgoingMedia,
  type PacingSlot,
  type Platform,
  type PlatformConnector,
  type PlatformMessage,
  type PlatformPacing,
  type PlatformPublisher,
  type SendTarget,
} from '../../src/domains/platforms/platform';
import type { PlatformChannel } from '../../src/domains/platforms/platform-answers';
import {
  TELEGRAM_LIMITS,
  telegramChannelUrl,
  telegramMessageUrl,
} from '../../src/domains/platforms/telegram/telegram-links';
import { RetryLater } from '../../src/domains/publication/publication.queue';
import { PublicationService } from '../../src/domains/publication/publication.service';
import { Factory, TestChannel, TestProject } from '../support/factories/factories';
import { publishNow, targetsOf } from '../support/publication';
import { TelegramStandIn } from '../support/stand-ins/telegram-stand-in';
import { startTestApp, TestApp } from '../support/test-app';

/** What the scripted publisher answers to one send: the messages made, or a failure. */
type Answer = { messages: PlatformMessage[] } | { failure: DeliveryFailure; message: string };

/** One send as the publisher received it. */
interface Send {
  credentials: string;
  target: SendTarget;
  text: string | null;
}

/** Records every send and answers them from a script; a send past the script is delivered. */
class ScriptedPublisher implements PlatformPublisher {
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

  plan(text: string, media: OutgoingMedia[]): DeliveryStep[] {
    return [{ kind: media.length ? 'single' : 'text', text, media, cost: 1 }];
  }

  async send(credentials: string, target: SendTarget, step: DeliveryStep) {
    this.sends.push({ credentials, target, text: step.text });
    const answer = this.script.shift() ?? { messages: [{ id: String(++this.nextId) }] };
    if ('failure' in answer) throw new DeliveryError(answer.failure, answer.message);
    return answer.messages;
  }
}

/** A pacing that always has room: every slot is now, every send is admitted at once. */
const ALWAYS_NOW: PlatformPacing = {
  admitSpacingMs: 0,
  reserve: async (): Promise<PacingSlot> => ({ kind: 'booked', waitMs: 0 }),
  admit: async () => 0,
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
class ScriptedPlatform implements Platform {
  readonly name = 'telegram';
  readonly displayName = 'Telegram';
  readonly limits = TELEGRAM_LIMITS;
  readonly accountLimits = false;
  readonly publisher = new ScriptedPublisher(this.name);
  readonly pacing = ALWAYS_NOW;
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

/**
 * The publication service on its own (docs/api-rules.md#delivery): each test creates a post
 * through the HTTP API of an app whose worker is off (APP_ROLE=api), then runs its job by calling
 * `PublicationService.run` directly against a scripted platform, on the real database and Redis.
 */
describe('PublicationService with a scripted platform', () => {
  const platform = new ScriptedPlatform();
  const sends = platform.publisher.sends;
  let telegram: TelegramStandIn;
  let t: TestApp;
  let publication: PublicationService;
  let project: TestProject;
  let key: string;
  let account: { id: number; token: string };
  let channel: TestChannel;

  beforeAll(async () => {
    telegram = await new TelegramStandIn().start();
    t = await startTestApp(
      { TELEGRAM_API_BASE_URL: telegram.url, APP_ROLE: 'api' },
      { overrides: [{ provide: REGISTERED_PLATFORMS, useValue: [platform] }] },
    );
    publication = t.app.get(PublicationService);
    const make = new Factory(t, telegram);
    const made = await make.ownerWithChannels('Publication service');
    ({ project, key, account } = made);
    channel = made.channels[0];
  });
  afterAll(async () => {
    await t?.close();
    await telegram?.stop();
  });
  beforeEach(() => {
    platform.publisher.reset();
    platform.confirmsByKey = false;
  });

  const newPost = (text: string) => publishNow(t, project.id, key, channel.id, text);

  async function statusOf(postId: number): Promise<string> {
    const { rows } = await t.db.query<{ status: string }>(
      'SELECT status FROM posts WHERE id = $1',
      [postId],
    );
    return rows[0].status;
  }

  it('delivers a post in one run: the account’s credentials, the channel, the text', async () => {
    platform.publisher.answer({ messages: [{ id: '4242' }] });
    const postId = await newPost('Hello from the service');

    await publication.run(postId, 1);

    expect(sends).toEqual([
      {
        credentials: account.token,
        target: expect.objectContaining({
          accountId: account.id,
          chatId: channel.channel_id,
          retry: false,
        }),
        text: 'Hello from the service',
      },
    ]);
    expect(await statusOf(postId)).toBe('published');
    expect(await targetsOf(t, postId)).toEqual([
      expect.objectContaining({ status: 'published', error_code: null, message_ids: [4242] }),
    ]);
  });

  it('a transient failure puts the job back; the next run sends again and delivers', async () => {
    platform.publisher.answer({ failure: 'transient', message: 'HTTP 502' });
    const postId = await newPost('Second time lucky');

    await expect(publication.run(postId, 1)).rejects.toBeInstanceOf(RetryLater);
    expect(await statusOf(postId)).toBe('publishing');
    expect(await targetsOf(t, postId)).toEqual([expect.objectContaining({ status: 'pending' })]);

    await publication.run(postId, 1);

    expect(sends.map((s) => s.target.retry)).toEqual([false, true]);
    expect(await statusOf(postId)).toBe('published');
  });

  it('an unknown outcome where the platform confirms by key: sent again, same key, marked a retry', async () => {
    platform.confirmsByKey = true;
    platform.publisher.answer({ failure: 'unconfirmed', message: 'No answer in time' });
    const postId = await newPost('Did it arrive?');

    await expect(publication.run(postId, 1)).rejects.toBeInstanceOf(RetryLater);
    await publication.run(postId, 1);

    expect(sends).toHaveLength(2);
    expect(sends[1].target.key).toBe(sends[0].target.key);
    expect(sends.map((s) => s.target.retry)).toEqual([false, true]);
    expect(await statusOf(postId)).toBe('published');
  });

  it('an unknown outcome where the platform cannot confirm: delivery_unconfirmed, never sent again', async () => {
    platform.publisher.answer({ failure: 'unconfirmed', message: 'No answer in time' });
    const postId = await newPost('Maybe delivered');

    await publication.run(postId, 1);
    await publication.run(postId, 1);

    expect(sends).toHaveLength(1);
    expect(await statusOf(postId)).toBe('failed');
    expect(await targetsOf(t, postId)).toEqual([
      expect.objectContaining({ status: 'failed', error_code: 'delivery_unconfirmed' }),
    ]);
  });

  it('refused credentials mark the account needs_reconnect and fail the target', async () => {
    const make = new Factory(t, telegram);
    const other = await make.ownerWithChannels('Refused credentials');
    platform.publisher.answer({ failure: 'unauthorized', message: 'Unauthorized' });
    const postId = await publishNow(
      t,
      other.project.id,
      other.key,
      other.channels[0].id,
      'Nobody is listening',
    );

    await publication.run(postId, 1);

    expect(await statusOf(postId)).toBe('failed');
    expect(await targetsOf(t, postId)).toEqual([
      expect.objectContaining({ status: 'failed', error_code: 'account_needs_reconnect' }),
    ]);
    const { rows } = await t.db.query<{ needs_reconnect: boolean }>(
      'SELECT needs_reconnect FROM accounts WHERE id = $1',
      [other.account.id],
    );
    expect(rows[0].needs_reconnect).toBe(true);
  });
});
