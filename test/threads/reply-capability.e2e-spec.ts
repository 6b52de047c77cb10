import { projectApi } from '../support/factories/project-api';
import {
  resetScripted,
  ScriptedPlatform,
  type ScriptedWorld,
  startWithScriptedPlatform,
} from '../support/scripted-platform';

/**
 * A platform declares how it takes a thread: each item a reply to the one before, a single first
 * comment, or none. The checks follow the declaration alone, so a platform that lands later only
 * declares it (and sends its replies).
 */
describe('A platform’s declared replies', () => {
  const platform = new ScriptedPlatform();
  let world: ScriptedWorld;

  beforeAll(async () => {
    world = await startWithScriptedPlatform(platform, 'Replies', {
      env: { RATE_LIMIT_CREATE_POST: '1000', RATE_LIMIT_OTHER: '1000' },
    });
  });
  afterAll(() => world?.close());
  afterEach(() => {
    resetScripted(platform);
    platform.replies = 'chain';
  });

  const { api } = projectApi(() => world);
  const create = (thread: { text: string }[]) =>
    api('post', '/posts').send({
      text: 'Head',
      thread,
      targets: [{ channel_ref: world.channel.id }],
    });

  it('none: a thread is 400 thread_not_supported naming the target; a post without one is fine', async () => {
    platform.replies = 'none';
    const res = await create([{ text: 'A reply' }]).expect(400);
    expect(res.body.error).toMatchObject({
      code: 'thread_not_supported',
      message: 'Telegram takes no thread of replies',
    });
    expect(res.body.error.details).toEqual([
      {
        code: 'thread_not_supported',
        message: 'Telegram takes no thread of replies',
        field: 'thread',
        channel_ref: world.channel.id,
      },
    ]);
    await create([]).expect(201);
    const dry = await api('post', '/posts/validate')
      .send({ text: 'Head', thread: [{ text: 'x' }], targets: [{ channel_ref: world.channel.id }] })
      .expect(200);
    expect(dry.body.errors.map((e: { code: string }) => e.code)).toEqual(['thread_not_supported']);
  });

  it('first_comment: one item is taken, two are refused', async () => {
    platform.replies = 'first_comment';
    await create([{ text: 'The link below' }]).expect(201);
    const res = await create([{ text: 'One' }, { text: 'Two' }]).expect(400);
    expect(res.body.error).toMatchObject({
      code: 'thread_not_supported',
      message: 'Telegram takes one first comment; this thread has 2 items',
    });
  });

  it('chain: up to 24 items; a 25th is refused by shape, an unknown item field too', async () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `Item ${i}` }));
    await create(items(24)).expect(201);
    expect((await create(items(25)).expect(400)).body.error.code).toBe('validation_failed');
    const odd = await api('post', '/posts')
      .send({ text: 'Head', thread: [{ text: 'x', colour: 'red' }] })
      .expect(400);
    expect(odd.body.error.code).toBe('validation_failed');
    const blank = await api('post', '/posts')
      .send({ text: 'Head', thread: [{ text: '   ' }] })
      .expect(400);
    expect(blank.body.error.code).toBe('validation_failed');
  });

  it('split_long_text: a text beyond 25 messages, or a word longer than the limit, is text_too_long', async () => {
    const ref = world.channel.id;
    const tooMany = 'x'.repeat(3000).concat(' ').repeat(26).trim();
    const res = await api('post', '/posts')
      .send({ text: tooMany, split_long_text: true, targets: [{ channel_ref: ref }] })
      .expect(400);
    expect(res.body.error).toMatchObject({ code: 'text_too_long' });
    expect(res.body.error.details[0]).toMatchObject({ field: 'text', channel_ref: ref });
    const word = await api('post', '/posts')
      .send({ text: 'y'.repeat(5000), split_long_text: true, targets: [{ channel_ref: ref }] })
      .expect(400);
    expect(word.body.error.code).toBe('text_too_long');
    // Without it the body's own limit holds, as before.
    const plain = await api('post', '/posts')
      .send({ text: 'z '.repeat(2500), targets: [{ channel_ref: ref }] })
      .expect(400);
    expect(plain.body.error.code).toBe('validation_failed');
    const split = await api('post', '/posts')
      .send({ text: 'z '.repeat(2500), split_long_text: true, targets: [{ channel_ref: ref }] })
      .expect(201);
    const post = await api('get', `/posts/${split.body.id}`).expect(200);
    expect(post.body).toMatchObject({ split_long_text: true, thread: [] });
  });
});
