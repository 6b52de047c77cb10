import { Factory, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import { addMember, allFlagsBut } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';
import type { SignedInUser } from '../support/factories/factories';

/** An image's alt text, given at upload beside the file or changed later, kept and answered with the media. */
describe('media alt text', () => {
  let t: TestApp;
  let project: TestProject;
  let key: string;
  let owner: SignedInUser;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_UPLOAD: '1000' });
    ({ owner, project, key } = await new Factory(t).owner('Alt text'));
  });

  afterAll(async () => {
    await t?.close();
  });

  const { api } = projectApi(() => ({ t, project, key }));
  const withAlt = (alt: string) =>
    api('post', '/media').field('alt_text', alt).attach('files', fixture('sample.png'), 'a.png');

  it('takes alt_text beside the file and answers it; none is null', async () => {
    const alt = 'Ж'.repeat(1500);
    const res = await withAlt(alt).expect(201);
    expect(res.body.items[0]).toMatchObject({ filename: 'a.png', alt_text: alt });
    const { rows } = await t.db.query('SELECT alt_text FROM media_assets WHERE id = $1', [
      res.body.items[0].id,
    ]);
    expect(rows[0].alt_text).toBe(alt);
    const plain = await api('post', '/media')
      .attach('files', fixture('sample.png'), 'a.png')
      .expect(201);
    expect(plain.body.items[0].alt_text).toBeNull();
  });

  it('refuses alt text over 1,500 characters and any other field, storing nothing', async () => {
    const { rows: before } = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
    const long = await withAlt('x'.repeat(1501)).expect(400);
    expect(long.body.error.code).toBe('validation_failed');
    expect(long.body.error.message).toContain('alt_text');
    const other = await api('post', '/media')
      .field('caption', 'no')
      .attach('files', fixture('sample.png'), 'a.png')
      .expect(400);
    expect(other.body.error.code).toBe('validation_failed');
    const { rows: after } = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
    expect(after[0].n).toBe(before[0].n);
  });

  describe('PATCH /projects/{project_id}/media/{media_id}', () => {
    const altOf = async (id: number) =>
      (await t.db.query('SELECT alt_text FROM media_assets WHERE id = $1', [id])).rows[0]
        .alt_text as string | null;
    const patch = (id: number | string, body: unknown, apiKey?: string) =>
      api('patch', `/media/${id}`, apiKey).send(body as object);

    it('sets and removes the alt text, answers the MediaAsset, and the post shows it', async () => {
      const res = await withAlt('A cat').expect(201);
      const asset = res.body.items[0];
      const post = await api('post', '/posts')
        .send({ text: 'Pet', media_ids: [asset.id] })
        .expect(201);

      const changed = await patch(asset.id, { alt_text: 'A grey cat asleep on a keyboard' }).expect(
        200,
      );
      expect(changed.body).toEqual({ ...asset, alt_text: 'A grey cat asleep on a keyboard' });
      expect(await altOf(asset.id)).toBe('A grey cat asleep on a keyboard');
      const read = await api('get', `/posts/${post.body.id}`).expect(200);
      expect(read.body.media).toEqual([
        expect.objectContaining({ id: asset.id, alt_text: 'A grey cat asleep on a keyboard' }),
      ]);

      const cleared = await patch(asset.id, { alt_text: null }).expect(200);
      expect(cleared.body.alt_text).toBeNull();
      expect(await altOf(asset.id)).toBeNull();
    });

    it('refuses a missing, long, non-string or extra field, changing nothing', async () => {
      const id = (await withAlt('Kept').expect(201)).body.items[0].id;
      for (const body of [
        {},
        { alt_text: 'x'.repeat(1501) },
        { alt_text: 7 },
        { alt_text: 'ok', filename: 'b.png' },
      ]) {
        const res = await patch(id, body).expect(400);
        expect(res.body.error.code).toBe('validation_failed');
      }
      const broken = await api('patch', `/media/${id}`)
        .set('Content-Type', 'application/json')
        .send('{"alt_text":')
        .expect(400);
      expect(broken.body.error.code).toBe('invalid_json');
      expect(await altOf(id)).toBe('Kept');
    });

    it("answers 404 media_not_found for another project's asset, an unknown id or a non-integer id", async () => {
      const make = new Factory(t);
      const other = await make.owner('Someone else');
      const theirs = (
        await t.http
          .post(`/api/public/v1/projects/${other.project.id}/media`)
          .set('Authorization', `Bearer ${other.key}`)
          .field('alt_text', 'Theirs')
          .attach('files', fixture('sample.png'), 'a.png')
          .expect(201)
      ).body.items[0].id as number;
      for (const id of [theirs, 2147483647, 'abc', '1.5', 2147483648]) {
        const res = await patch(id, { alt_text: 'Mine now' }).expect(404);
        expect(res.body).toEqual({
          error: { code: 'media_not_found', message: 'Media not found' },
        });
      }
      expect(await altOf(theirs)).toBe('Theirs');
      // In a post's body the same code stays a 400: the post is the resource there.
      const inPost = await api('post', '/posts')
        .send({ text: 'x', media_ids: [theirs] })
        .expect(400);
      expect(inPost.body.error.code).toBe('media_not_found');
    });

    it('needs media:write and the permission to edit content', async () => {
      const make = new Factory(t);
      const id = (await withAlt('Guarded').expect(201)).body.items[0].id;
      const readOnly = await make.apiKey(owner, { scopes: ['posts:read'] });
      const scope = await patch(id, { alt_text: 'No' }, readOnly).expect(403);
      expect(scope.body.error.code).toBe('insufficient_scope');

      const member = await make.admin('Viewer');
      await addMember(t, owner, project, member, 'editor', allFlagsBut('can_edit_content'));
      const flag = await patch(id, { alt_text: 'No' }, await make.apiKey(member)).expect(403);
      expect(flag.body.error.code).toBe('forbidden');

      const stranger = await make.owner('Stranger');
      const foreign = await patch(id, { alt_text: 'No' }, stranger.key).expect(404);
      expect(foreign.body.error.code).toBe('project_not_found');
      await api('patch', `/media/${id}`, 'hrld_live_none').send({ alt_text: 'No' }).expect(401);
      expect(await altOf(id)).toBe('Guarded');
    });
  });
});
