import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import type { AppConfig } from '../../../infrastructure/config/config';
import { OutboundDispatchers } from '../../../infrastructure/outbound/outbound-dispatchers';
import { HostAdmission, systemResolver } from '../../../infrastructure/outbound/pinned-address';
import type { StorageDriver } from '../../../infrastructure/storage/storage-driver';
import { MastodonStandIn } from '../../../../test/support/stand-ins/mastodon-stand-in';
import { DeliveryError, type OutgoingMedia, type SendTarget } from '../platform';
import { MastodonApi } from './mastodon-api';
import { sealableSecret } from './mastodon-credentials';
import { MastodonPublisher } from './mastodon-publisher';
import { UNPACED } from '../rate-limit-report';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const MP4 = Buffer.from('000000186674797069736f6d', 'hex');

/** Storage holding a few files in memory, read as the real drivers stream them. */
function memoryStorage(files: Record<string, Buffer>): StorageDriver {
  return {
    put: () => Promise.reject(new Error('read-only')),
    openRead: (path) =>
      path in files
        ? Promise.resolve(Readable.from([files[path]]))
        : Promise.reject(new Error('missing')),
    delete: () => Promise.resolve(),
    publicUrl: (path) => `http://herald.test/media/${path}`,
  };
}

const medium = (name: string, bytes: Buffer, type: 'image' | 'video'): OutgoingMedia => ({
  type,
  mimeType: type === 'image' ? 'image/png' : 'video/mp4',
  filename: name,
  altText: null,
  storagePath: `projects/1/2026/11/${name}`,
  sizeBytes: bytes.length,
});

/** The client and publisher against a stand-in instance on loopback, which the allow-list opens. */
describe('MastodonPublisher against a Mastodon stand-in', () => {
  let mastodon: MastodonStandIn;
  let dispatchers: OutboundDispatchers;
  const files = { 'projects/1/2026/11/a.png': PNG, 'projects/1/2026/11/v.mp4': MP4 };

  beforeAll(async () => {
    mastodon = await new MastodonStandIn().start();
    dispatchers = outbound(['127.0.0.1/32']);
  });
  afterAll(async () => {
    await dispatchers.onApplicationShutdown();
    await mastodon.stop();
  });

  function outbound(allow: string[]): OutboundDispatchers {
    const config = { outboundAllowCidrs: allow } as unknown as AppConfig;
    return new OutboundDispatchers(new HostAdmission(config, systemResolver));
  }

  function publisher(sendTimeoutMs = 5_000, through = dispatchers): MastodonPublisher {
    const config = { publication: { sendTimeoutMs } } as unknown as AppConfig;
    return new MastodonPublisher(new MastodonApi(through), config, memoryStorage(files));
  }

  function account(instanceUrl = mastodon.url) {
    const { token, account } = mastodon.addAccount();
    return { token, account, secret: sealableSecret({ instanceUrl, accessToken: token }) };
  }

  let keys = 0;
  const target = (chatId: string): SendTarget => ({
    accountId: 1,
    chatId,
    key: `3m4kq2x7abc${String(++keys).padStart(2, '0')}-0`,
    tid: '3m4kq2x7abc22',
    retry: false,
    progress: null,
    keep: () => Promise.resolve(),
    observeRateLimit: UNPACED,
  });

  const failureOf = (work: Promise<unknown>) =>
    work.then(
      () => null,
      (error: unknown) => error as DeliveryError,
    );

  it('plans a post as one status whatever it holds: one status, and a call per upload beside it', () => {
    const media = [medium('a.png', PNG, 'image'), medium('b.png', PNG, 'image')];
    expect(publisher().plan('hi', media)).toEqual([
      { kind: 'album', text: 'hi', media, cost: 1, calls: 3 },
    ]);
    expect(publisher().plan('hi', [])).toEqual([
      { kind: 'text', text: 'hi', media: [], cost: 1, calls: 1 },
    ]);
  });

  it('posts a public status with Bearer token and the target key as Idempotency-Key', async () => {
    const { token, account: who, secret } = account();
    const to = target(who.id);
    const [message] = await publisher().send(secret, to, {
      kind: 'text',
      text: 'Hello fediverse',
      media: [],
      cost: 1,
    });
    const [call] = mastodon.callsOf('post_status').slice(-1);
    expect(call.headers.authorization).toBe(`Bearer ${token}`);
    expect(call.headers['idempotency-key']).toBe(to.key);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.body).toEqual({ status: 'Hello fediverse', media_ids: [], visibility: 'public' });
    const [made] = mastodon.statusesOf(who.id);
    expect(message).toEqual({ id: made.id, url: `${who.url}/${made.id}` });
  });

  it('uploads each medium, polls one being processed until ready, then attaches them in order', async () => {
    const { account: who, secret } = account();
    mastodon.processMedia({ polls: 3, async: true });
    const media = [medium('a.png', PNG, 'image')];
    const [message] = await publisher().send(secret, target(who.id), {
      kind: 'single',
      text: '',
      media,
      cost: 1,
    });
    const uploads = mastodon.callsOf('upload_media').slice(-1);
    expect(uploads[0].files).toEqual([
      { field: 'file', filename: 'a.png', mimeType: 'image/png', bytes: PNG },
    ]);
    const id = mastodon.statusesOf(who.id)[0].mediaIds[0];
    const polls = mastodon.callsOf('get_media').filter((c) => c.path.endsWith(`/${id}`));
    expect(polls.map((c) => c.status)).toEqual([206, 206, 206, 200]);
    expect(message.id).toBe(mastodon.statusesOf(who.id)[0].id);
    expect(mastodon.callsOf('post_status').slice(-1)[0].body).toEqual({
      status: '',
      media_ids: [id],
      visibility: 'public',
    });
  });

  it('a status tried again with its key is the status already made, never a second one', async () => {
    const { account: who, secret } = account();
    const to = target(who.id);
    const step = { kind: 'text' as const, text: 'once', media: [], cost: 1 };
    mastodon.script('post_status', { afterServing: 'drop' });
    const failure = await failureOf(publisher().send(secret, to, step));
    expect(failure).toMatchObject({ failure: 'unconfirmed' });
    const [again] = await publisher().send(secret, { ...to, retry: true }, step);
    const made = mastodon.statusesOf(who.id);
    expect(made).toHaveLength(1);
    expect(again.id).toBe(made[0].id);
  });

  it('a status made and then unanswered past the send time-out is unconfirmed', async () => {
    const { account: who, secret } = account();
    mastodon.script('post_status', { afterServing: 'hang' });
    const started = Date.now();
    const failure = await failureOf(
      publisher(300).send(secret, target(who.id), {
        kind: 'text',
        text: 'slow',
        media: [],
        cost: 1,
      }),
    );
    expect(failure).toMatchObject({ failure: 'unconfirmed' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(mastodon.statusesOf(who.id)).toHaveLength(1);
  });

  it('an upload unanswered past the send time-out is transient: no status was made', async () => {
    const { account: who, secret } = account();
    mastodon.script('upload_media', { hang: true });
    const failure = await failureOf(
      publisher(300).send(secret, target(who.id), {
        kind: 'single',
        text: 'z',
        media: [medium('a.png', PNG, 'image')],
        cost: 1,
      }),
    );
    expect(failure).toMatchObject({ failure: 'transient' });
    expect(mastodon.statusesOf(who.id)).toHaveLength(0);
  });

  it('a 429 waits until its X-RateLimit-Reset, reckoned from the answer', async () => {
    const { account: who, secret } = account();
    const reset = new Date(Date.now() + 90_000).toISOString();
    mastodon.script('post_status', {
      status: 429,
      error: 'Too many requests',
      headers: { 'x-ratelimit-reset': reset },
    });
    const failure = await failureOf(
      publisher().send(secret, target(who.id), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    expect(failure).toMatchObject({
      failure: 'rate_limited',
      message: 'Mastodon 429: Too many requests',
    });
    expect(failure!.retryAfterMs).toBeGreaterThan(88_000);
    expect(failure!.retryAfterMs).toBeLessThanOrEqual(91_000);
  });

  it.each([
    [401, 'The access token is invalid', 'unauthorized'],
    [422, 'Validation failed: Text character limit of 500 exceeded', 'rejected'],
    [403, 'This action is outside the authorized scopes', 'rejected'],
    [500, 'Internal server error', 'transient'],
    [503, 'Remote data could not be fetched', 'transient'],
  ])('an answer %i is %s with Mastodon’s message', async (status, error, failure) => {
    const { token, account: who, secret } = account();
    mastodon.script('post_status', { status, error });
    const refused = await failureOf(
      publisher().send(secret, target(who.id), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    expect(refused).toMatchObject({ failure, message: `Mastodon ${status}: ${error}` });
    expect(refused!.errorCode).toBe(failure === 'rejected' ? 'mastodon_rejected' : null);
    expect(refused!.message).not.toContain(token);
  });

  it('a token the instance does not know is unauthorized', async () => {
    const secret = sealableSecret({ instanceUrl: mastodon.url, accessToken: 'revoked' });
    const failure = await failureOf(
      publisher().send(secret, target('1'), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    expect(failure).toMatchObject({
      failure: 'unauthorized',
      message: 'Mastodon 401: The access token is invalid',
    });
  });

  it('a medium the instance fails to process is refused with its message', async () => {
    const { account: who, secret } = account();
    mastodon.processMedia({ polls: 1, async: true, fails: true });
    const failure = await failureOf(
      publisher().send(secret, target(who.id), {
        kind: 'single',
        text: 'z',
        media: [medium('v.mp4', MP4, 'video')],
        cost: 1,
      }),
    );
    expect(failure).toMatchObject({
      failure: 'rejected',
      message: 'Mastodon 422: Error processing thumbnail for uploaded media',
    });
    expect(mastodon.statusesOf(who.id)).toHaveLength(0);
  });

  it('a refused connection is transient: nothing reached the instance', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const { secret } = account(`http://127.0.0.1:${port}`);
    const failure = await failureOf(
      publisher().send(secret, target('1'), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    expect(failure).toMatchObject({
      failure: 'transient',
      message: 'Mastodon post_status failed: ECONNREFUSED',
    });
  });

  it('a redirect is not followed: refused, naming where the instance lives', async () => {
    const redirecting = createHttpServer((_req, res) =>
      res.writeHead(301, { location: 'https://social.example/api/v1/statuses' }).end(),
    );
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    const port = (redirecting.address() as { port: number }).port;
    const { secret } = account(`http://127.0.0.1:${port}`);
    const failure = await failureOf(
      publisher().send(secret, target('1'), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    await new Promise((resolve) => redirecting.close(resolve));
    expect(failure).toMatchObject({
      failure: 'rejected',
      message:
        'Mastodon 301: The instance redirects to https://social.example; give that address as instance_url',
    });
  });

  it.each([
    [502, 'transient'],
    [404, 'rejected'],
  ])('an answer %i that is not JSON is %s, named by its HTTP status', async (status, failure) => {
    const html = createHttpServer((_req, res) =>
      res.writeHead(status, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>'),
    );
    await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
    const port = (html.address() as { port: number }).port;
    const { secret } = account(`http://127.0.0.1:${port}`);
    const refused = await failureOf(
      publisher().send(secret, target('1'), { kind: 'text', text: 'z', media: [], cost: 1 }),
    );
    await new Promise((resolve) => html.close(resolve));
    expect(refused).toMatchObject({
      failure,
      message: `Mastodon ${status}: Unreadable answer (HTTP ${status})`,
    });
  });

  it('an instance whose address the outbound rules refuse is never called', async () => {
    const closedList = outbound([]);
    const { account: who, secret } = account();
    const before = mastodon.calls.length;
    const failure = await failureOf(
      publisher(5_000, closedList).send(secret, target(who.id), {
        kind: 'text',
        text: 'z',
        media: [],
        cost: 1,
      }),
    );
    expect(failure).toMatchObject({ failure: 'rejected' });
    expect(failure!.message).toContain('local or private address');
    expect(mastodon.calls.length).toBe(before);
    await closedList.onApplicationShutdown();
  });
});
