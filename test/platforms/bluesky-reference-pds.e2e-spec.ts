import { SecretsService } from '../../src/infrastructure/config/secrets.service';
import {
  BLUESKY_FAST,
  type BlueskyWorld,
  type ConnectedBluesky,
  startWithBluesky,
} from '../support/factories/bluesky-world';
import { SignedInUser, TestProject } from '../support/factories/factories';
import { fixture, pngOf } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import { targetsOf, waitForPostStatus } from '../support/publication';
import {
  type PdsAccount,
  ReferencePds,
  referencePdsMissing,
} from '../support/stand-ins/reference-pds';
import { TestApp } from '../support/test-app';
import { waitFor } from '../support/waits';
import { WebhookReceiver } from '../support/webhook-receiver';

type Connected = ConnectedBluesky<PdsAccount>;

const missing = referencePdsMissing();
if (missing) process.stderr.write(`Skipping the reference-PDS spec: ${missing}\n`);
const describeWithPds = missing ? describe.skip : describe;

/** A PNG's own width and height, from its header. */
function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * Bluesky against its reference server: `@atproto/pds` with an in-memory PLC, on a loopback
 * address, in dev mode with its rate limits on. Everything Herald sends is read back from the PDS
 * as it stored it; where the PDS draws a line (text, image size, its rate limits), both sides of it.
 */
describeWithPds('Bluesky against the reference PDS', () => {
  let pds: ReferencePds;
  let world: BlueskyWorld;
  let t: TestApp;
  let owner: SignedInUser;
  let project: TestProject;
  let key: string;
  let main: Connected;

  beforeAll(async () => {
    pds = await new ReferencePds('127.0.0.3').start();
    // Webhook receivers listen on 127.0.0.2; the PDS's 127.0.0.3 is allowed as a service_url.
    world = await startWithBluesky(pds, 'Reference PDS', {
      ...BLUESKY_FAST,
      BLUESKY_SERVICE_URL: pds.url,
      OUTBOUND_ALLOW_CIDRS: '127.0.0.2/32,127.0.0.3/32',
    });
    ({ t, owner, project, key } = world);
    main = await connect();
  }, 60_000);

  afterAll(() => world?.close());

  const connectBody = (account: PdsAccount, extra: Record<string, unknown> = {}) =>
    world.connectBody(account, extra);
  const connect = async (): Promise<Connected> => world.connect(await pds.createAccount());
  const { api, upload } = projectApi(() => ({ t, project, key }));
  const publish = (target: { ref: string }, body: Record<string, unknown>) =>
    world.publish(target, body);
  const uriOf = async (postId: number) =>
    (
      (await api('get', `/posts/${postId}`).expect(200)).body as {
        targets: { messages: { id: string }[] }[];
      }
    ).targets[0].messages[0].id;
  /** The record as the PDS keeps it, by its at:// URI. */
  const record = async (uri: string) => {
    const [, , repo, collection, rkey] = uri.split('/');
    const answer = await pds.xrpc('com.atproto.repo.getRecord', {
      params: { repo, collection, rkey },
    });
    expect(answer.status).toBe(200);
    return (answer.body as { value: Record<string, unknown> }).value;
  };

  /** Replaces the account's kept session with `change(session)`, sealed as Herald seals it. */
  async function rewriteSession(
    accountId: number,
    change: (session: { accessJwt: string; refreshJwt: string }) => {
      accessJwt: string;
      refreshJwt: string;
    },
  ) {
    const secrets = t.app.get(SecretsService);
    const { rows } = await t.db.query('SELECT session_encrypted FROM accounts WHERE id = $1', [
      accountId,
    ]);
    const session = JSON.parse(secrets.open(rows[0].session_encrypted as string)) as {
      accessJwt: string;
      refreshJwt: string;
    };
    await t.db.query('UPDATE accounts SET session_encrypted = $2 WHERE id = $1', [
      accountId,
      secrets.seal(JSON.stringify(change(session))),
    ]);
  }

  describe('connecting', () => {
    it('connects by handle on the operator service, and by DID with service_url', async () => {
      expect(main.account.did).toMatch(/^did:plc:/);
      const account = await pds.createAccount();
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send(connectBody(account, { identifier: account.did, service_url: pds.url }))
        .expect(201);
      expect(res.body).toMatchObject({ platform: 'bluesky', title: account.handle });
      const ref = `bluesky:${res.body.id}:${account.did}`;
      const postId = await publish({ ref }, { text: 'By DID' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(await pds.posts(account.did)).toHaveLength(1);
    });

    it("answers the PDS's 429 at createSession as 429 rate_limit_exceeded with Retry-After", async () => {
      const account = await pds.createAccount();
      // The PDS allows 30 sessions in 5 minutes per identifier.
      let limited = false;
      for (let i = 0; i < 31 && !limited; i++) {
        const answer = await pds.xrpc('com.atproto.server.createSession', {
          input: { identifier: account.handle, password: 'not-the-password' },
        });
        limited = answer.status === 429;
      }
      expect(limited).toBe(true);
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send(connectBody(account))
        .expect(429);
      expect(res.body.error.code).toBe('rate_limit_exceeded');
      expect(res.body.error.message).toMatch(/Bluesky/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(300);
    });
  });

  describe('records', () => {
    it('posts text with link, tag and mention facets, read back byte for byte', async () => {
      const other = await pds.createAccount();
      const text = `Привет @${other.handle} и @nobody-here.test 👋 https://example.com/путь #herald #тег`;
      const postId = await publish(main, { text });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const value = await record(await uriOf(postId));
      const bytes = Buffer.from(text, 'utf8');
      const span = (s: string) => {
        const start = bytes.indexOf(Buffer.from(s, 'utf8'));
        return { byteStart: start, byteEnd: start + Buffer.byteLength(s) };
      };
      expect(value.text).toBe(text);
      expect(Buffer.from(value.text as string, 'utf8').equals(bytes)).toBe(true);
      expect(value.facets).toEqual([
        {
          index: span(`@${other.handle}`),
          features: [{ $type: 'app.bsky.richtext.facet#mention', did: other.did }],
        },
        {
          index: span('https://example.com/путь'),
          features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/путь' }],
        },
        {
          index: span('#herald'),
          features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'herald' }],
        },
        {
          index: span('#тег'),
          features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'тег' }],
        },
      ]);
      expect(await pds.posts(main.account.did)).toHaveLength(1);
    });

    it('a split text and its thread: records chained by strong refs the PDS keeps, in order', async () => {
      const text = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
      const image = await upload('sample.png');
      const postId = await publish(main, {
        text,
        media_ids: [image],
        split_long_text: true,
        thread: [{ text: 'The last word' }],
      });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const { body } = await api('get', `/posts/${postId}`).expect(200);
      const uris = (body.targets[0].messages as { id: string }[]).map((m) => m.id);
      expect(uris.length).toBeGreaterThanOrEqual(3);
      const stored: { uri: string; cid: string; value: Record<string, unknown> }[] = [];
      for (const uri of uris) {
        const [, , repo, collection, rkey] = uri.split('/');
        const answer = await pds.xrpc('com.atproto.repo.getRecord', {
          params: { repo, collection, rkey },
        });
        expect(answer.status).toBe(200);
        stored.push(answer.body as { uri: string; cid: string; value: Record<string, unknown> });
      }
      const texts = stored.map((r) => r.value.text as string);
      expect(texts.slice(0, -1).join(' ')).toBe(text);
      expect(texts.at(-1)).toBe('The last word');
      expect(stored.map((r) => Boolean(r.value.embed))).toEqual(uris.map((_, i) => i === 0));
      stored.forEach((r, i) =>
        expect(r.value.reply).toEqual(
          i === 0
            ? undefined
            : {
                root: { uri: stored[0].uri, cid: stored[0].cid },
                parent: { uri: stored[i - 1].uri, cid: stored[i - 1].cid },
              },
        ),
      );
    });

    it('posts images up to 2,000,000 bytes, their bytes intact, with alt text and aspect ratio', async () => {
      const big = pngOf(2_000_000);
      const described = await api('post', '/media')
        .field('alt_text', 'A lighthouse at dusk')
        .attach('files', big, 'IMG_2034.png')
        .expect(201);
      expect(described.body.items[0].alt_text).toBe('A lighthouse at dusk');
      const plain = await upload('sample.gif');
      const own = await connect();
      const postId = await publish(own, {
        text: 'Two pictures',
        media_ids: [described.body.items[0].id, plain],
      });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      const value = await record(await uriOf(postId));
      const gif = fixture('sample.gif');
      const embed = value.embed as {
        $type: string;
        images: {
          alt: string;
          aspectRatio: { width: number; height: number };
          image: { ref: { $link: string }; size: number; mimeType: string };
        }[];
      };
      expect(embed.$type).toBe('app.bsky.embed.images');
      expect(
        embed.images.map((i) => [i.alt, i.aspectRatio, i.image.mimeType, i.image.size]),
      ).toEqual([
        ['A lighthouse at dusk', pngSize(big), 'image/png', 2_000_000],
        ['', { width: gif.readUInt16LE(6), height: gif.readUInt16LE(8) }, 'image/gif', gif.length],
      ]);
      const stored = await pds.blob(own.account.did, embed.images[0].image.ref.$link);
      expect(stored.equals(big)).toBe(true);
      expect(await pds.posts(own.account.did)).toHaveLength(1);
    });

    it('draws the text and image limits exactly where the PDS does', async () => {
      const { accessJwt } = await pds.ownSession(main.account);
      const direct = (text: string) =>
        pds.xrpc('com.atproto.repo.createRecord', {
          token: accessJwt,
          input: {
            repo: main.account.did,
            collection: 'app.bsky.feed.post',
            record: { $type: 'app.bsky.feed.post', text, createdAt: new Date().toISOString() },
          },
        });
      const create = (body: Record<string, unknown>) =>
        api('post', '/posts').send({ targets: [{ channel_ref: main.ref }], ...body });
      const family = '👨‍👩‍👧‍👦'; // one grapheme of 25 UTF-8 bytes
      for (const [fits, over] of [
        ['👍🏽'.repeat(300), '👍🏽'.repeat(301)],
        [family.repeat(120), `${family.repeat(120)}a`],
      ]) {
        expect((await direct(fits)).status).toBe(200);
        expect((await direct(over)).status).toBe(400);
        await create({ text: fits }).expect(201);
        expect((await create({ text: over }).expect(400)).body.error.code).toBe('text_too_long');
      }
      const over = await upload('over.png', pngOf(2_000_001));
      const refused = await create({ text: 'Over', media_ids: [over] }).expect(400);
      expect(refused.body.error).toMatchObject({
        code: 'media_too_large',
        details: [expect.objectContaining({ channel_ref: main.ref })],
      });
      // The PDS takes the upload but not a record embedding it.
      const blob = await pds.xrpc('com.atproto.repo.uploadBlob', {
        token: accessJwt,
        bytes: { body: pngOf(2_000_001), type: 'image/png' },
      });
      expect(blob.status).toBe(200);
      const embedded = await pds.xrpc('com.atproto.repo.createRecord', {
        token: accessJwt,
        input: {
          repo: main.account.did,
          collection: 'app.bsky.feed.post',
          record: {
            $type: 'app.bsky.feed.post',
            text: 'Over',
            createdAt: new Date().toISOString(),
            embed: {
              $type: 'app.bsky.embed.images',
              images: [{ alt: '', image: (blob.body as { blob: unknown }).blob }],
            },
          },
        },
      });
      expect(embedded.status).toBe(400);
    });

    it('a record key already taken: the record read at once, published, no try spent', async () => {
      const own = await connect();
      const draft = await api('post', '/posts')
        .send({ text: 'Made before', targets: [{ channel_ref: own.ref }] })
        .expect(201);
      const { rows } = await t.db.query(
        'SELECT delivery_key FROM post_targets WHERE post_id = $1',
        [draft.body.id],
      );
      const { accessJwt } = await pds.ownSession(own.account);
      const made = await pds.xrpc('com.atproto.repo.createRecord', {
        token: accessJwt,
        input: {
          repo: own.account.did,
          collection: 'app.bsky.feed.post',
          rkey: rows[0].delivery_key,
          record: {
            $type: 'app.bsky.feed.post',
            text: 'Made before',
            createdAt: new Date().toISOString(),
          },
        },
      });
      expect(made.status).toBe(200);
      await api('post', `/posts/${draft.body.id}/publish`).send({}).expect(202);
      expect((await waitForPostStatus(t, draft.body.id as number)).status).toBe('published');
      const target = await t.db.query('SELECT failures FROM post_targets WHERE post_id = $1', [
        draft.body.id,
      ]);
      expect(target.rows[0].failures).toBe(0);
      expect(await uriOf(draft.body.id as number)).toBe((made.body as { uri: string }).uri);
      expect(await pds.posts(own.account.did)).toHaveLength(1);
    });
  });

  describe('sessions', () => {
    it('renews an access token that expired for real, and publishes', async () => {
      const own = await connect();
      await rewriteSession(own.id, (s) => ({ ...s, accessJwt: pds.expired(s.accessJwt) }));
      const postId = await publish(own, { text: 'After two hours' });
      expect((await waitForPostStatus(t, postId)).status).toBe('published');
      expect(await pds.posts(own.account.did)).toHaveLength(1);
      const again = await publish(own, { text: 'And after that' });
      expect((await waitForPostStatus(t, again)).status).toBe('published');
      expect(await pds.posts(own.account.did)).toHaveLength(2);
    });

    it('a revoked app password with an expired token: needs_reconnect and one event', async () => {
      const receiver = await new WebhookReceiver('127.0.0.2').start();
      try {
        const own = await connect();
        const hook = await api('post', '/webhooks')
          .send({ url: receiver.url('/revoked'), events: ['channel.needs_reconnect'] })
          .expect(201);
        receiver.expect('/revoked', hook.body.secret as string);
        await pds.revokeAppPassword(own.account);
        await rewriteSession(own.id, (s) => ({ ...s, accessJwt: pds.expired(s.accessJwt) }));
        const postId = await publish(own, { text: 'Revoked' });
        expect((await waitForPostStatus(t, postId)).status).toBe('failed');
        const [row] = await targetsOf(t, postId);
        expect(row).toMatchObject({ status: 'failed', error_code: 'account_needs_reconnect' });
        const channels = await api('get', '/channels').expect(200);
        expect(
          (channels.body.items as { id: string; needs_reconnect: boolean }[]).find(
            (c) => c.id === own.ref,
          )?.needs_reconnect,
        ).toBe(true);
        await waitFor(() => receiver.of('/revoked').length === 1, 10_000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(receiver.of('/revoked')).toHaveLength(1);
        expect(receiver.of('/revoked')[0].payload).toMatchObject({
          type: 'channel.needs_reconnect',
          data: { account_id: own.id, channel_refs: [own.ref] },
        });
        expect(await pds.posts(own.account.did)).toHaveLength(0);
      } finally {
        await receiver.stop();
      }
    });
  });
});
