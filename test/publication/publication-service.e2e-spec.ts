import { RetryLater } from '../../src/domains/publication/publication.queue';
import { PublicationService } from '../../src/domains/publication/publication.service';
import { TestChannel, TestProject } from '../support/factories/factories';
import { publishNow, targetsOf } from '../support/publication';
import {
  resetScripted,
  ScriptedPlatform,
  ScriptedWorld,
  startWithScriptedPlatform,
} from '../support/scripted-platform';
import { TestApp } from '../support/test-app';

/**
 * The publication service on its own (docs/api-rules.md#delivery): each test creates a post
 * through the HTTP API of an app whose worker is off (APP_ROLE=api), then runs its job by calling
 * `PublicationService.run` directly against a scripted platform, on the real database and Redis.
 */
describe('PublicationService with a scripted platform', () => {
  const platform = new ScriptedPlatform();
  const sends = platform.publisher.sends;
  let world: ScriptedWorld;
  let t: TestApp;
  let publication: PublicationService;
  let project: TestProject;
  let key: string;
  let account: { id: number; token: string };
  let channel: TestChannel;

  beforeAll(async () => {
    world = await startWithScriptedPlatform(platform, 'Publication service');
    ({ t, project, key, account, channel } = world);
    publication = t.app.get(PublicationService);
  });
  afterAll(() => world?.close());
  beforeEach(() => resetScripted(platform));

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
    const other = await world.make.ownerWithChannels('Refused credentials');
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
