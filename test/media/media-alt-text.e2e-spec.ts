import { Factory, TestProject } from '../support/factories/factories';
import { fixture } from '../support/factories/media-helpers';
import { projectApi } from '../support/factories/project-api';
import { startTestApp, TestApp } from '../support/test-app';

/** An image's alt text, given at upload beside the file, kept and answered with the media. */
describe('media alt text', () => {
  let t: TestApp;
  let project: TestProject;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_UPLOAD: '1000' });
    ({ project, key } = await new Factory(t).owner('Alt text'));
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
});
