import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { POST_INSTRUCTIONS, TEMPLATE_INSTRUCTIONS } from '../../src/domains/ai/ai.service';
import { MAX_TEXT_LENGTH } from '../../src/domains/posts/post-state';
import { AiStandIn, STAND_IN_PNG } from '../support/stand-ins/ai-stand-in';
import { Factory, SignedInUser, TestProject } from '../support/factories/factories';
import { addMember } from '../support/factories/team';
import { startTestApp, TestApp } from '../support/test-app';
import { MICROS } from '../support/expectations';

describe('AI generation and post templates', () => {
  let ai: AiStandIn;
  let t: TestApp;
  let make: Factory;
  let owner: SignedInUser;
  let project: TestProject;

  beforeAll(async () => {
    ai = await new AiStandIn().start();
    t = await startTestApp({
      AI_API_BASE_URL: ai.url,
      AI_API_KEY: 'sk-test-key',
      AI_TEXT_MODEL: 'text-model-x',
      AI_IMAGE_MODEL: 'image-model-y',
    });
    make = new Factory(t);
    ({ owner, project } = await make.owner());
  });

  afterAll(async () => {
    await t?.close();
    await ai?.stop();
  });

  beforeEach(() => {
    ai.calls.length = 0;
    ai.failWith = null;
    ai.text = 'Generated post text';
    ai.image = STAND_IN_PNG;
  });

  describe('POST /api/posts/generate-post', () => {
    it('asks the provider’s chat completions and answers {text}', async () => {
      ai.text = '  Big news: Herald 2 is out!  ';
      const res = await t.http
        .post('/api/posts/generate-post')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'Announce Herald 2' })
        .expect(200);
      expect(res.body).toEqual({ text: 'Big news: Herald 2 is out!' });
      expect(ai.calls).toEqual([
        {
          path: '/v1/chat/completions',
          authorization: 'Bearer sk-test-key',
          body: {
            model: 'text-model-x',
            messages: [
              { role: 'system', content: POST_INSTRUCTIONS },
              { role: 'user', content: 'Announce Herald 2' },
            ],
          },
        },
      ]);
    });

    it('cuts an over-long answer to 4096 characters', async () => {
      ai.text = 'й'.repeat(5000);
      const res = await t.http
        .post('/api/posts/generate-post')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'long' })
        .expect(200);
      expect(res.body.text).toBe('й'.repeat(4096));
    });

    it('answers 502 ai_failed when the provider fails', async () => {
      ai.failWith = 500;
      const res = await t.http
        .post('/api/posts/generate-post')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'x' })
        .expect(502);
      expect(res.body.error.code).toBe('ai_failed');
      expect(res.body.error.message).not.toContain('sk-test-key');
    });

    it('validates the body after the permission check', async () => {
      const res = await t.http
        .post('/api/posts/generate-post')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: '', extra: 1 })
        .expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toContain('prompt');
      expect(res.body.error.message).toContain('extra');
      expect(ai.calls).toHaveLength(0);
    });
  });

  describe('POST /api/posts/generate-image', () => {
    it('asks the images endpoint for b64_json and stores the picture as a MediaAsset', async () => {
      const res = await t.http
        .post('/api/posts/generate-image')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'A lighthouse at dawn' })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(Number),
        type: 'image',
        filename: expect.stringMatching(/\.png$/),
        mime_type: 'image/png',
        alt_text: null,
        size_bytes: STAND_IN_PNG.length,
        url: `http://herald.test/media/${res.body.storage_path}`,
        storage_path: expect.stringMatching(new RegExp(`^projects/${project.id}/\\d{4}/\\d{2}/`)),
        created_at: expect.stringMatching(MICROS),
      });
      expect(readFileSync(join(t.mediaDir, res.body.storage_path))).toEqual(STAND_IN_PNG);
      const { rows } = await t.db.query(
        'SELECT project_id, uploaded_by_id, mime_type FROM media_assets WHERE id = $1',
        [res.body.id],
      );
      expect(rows).toEqual([
        { project_id: project.id, uploaded_by_id: owner.id, mime_type: 'image/png' },
      ]);
      expect(ai.calls).toEqual([
        {
          path: '/v1/images/generations',
          authorization: 'Bearer sk-test-key',
          body: {
            model: 'image-model-y',
            prompt: 'A lighthouse at dawn',
            n: 1,
            size: '1024x1024',
            response_format: 'b64_json',
          },
        },
      ]);
    });

    it('refuses bytes that are not an image (415) and keeps nothing', async () => {
      ai.image = Buffer.from('definitely not an image');
      const before = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
      const res = await t.http
        .post('/api/posts/generate-image')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'broken' })
        .expect(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
      const after = await t.db.query('SELECT count(*)::int AS n FROM media_assets');
      expect(after.rows[0].n).toBe(before.rows[0].n);
    });

    it('answers 502 ai_failed when the provider fails', async () => {
      ai.failWith = 429;
      const res = await t.http
        .post('/api/posts/generate-image')
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'x' })
        .expect(502);
      expect(res.body.error.code).toBe('ai_failed');
    });
  });

  describe('templates CRUD (can_manage_templates)', () => {
    const templates = '/api/posts/templates';

    it('creates, lists, reads, updates and deletes a template', async () => {
      const created = await t.http
        .post(templates)
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, name: 'Release', text: 'We released {product}' })
        .expect(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        project_id: project.id,
        name: 'Release',
        text: 'We released {product}',
        created_at: expect.stringMatching(MICROS),
        updated_at: expect.stringMatching(MICROS),
      });
      const id = created.body.id as number;

      const list = await t.http
        .get(templates)
        .query({ project_id: project.id })
        .set('Authorization', owner.auth)
        .expect(200);
      expect(list.body.items).toContainEqual(created.body);
      expect(list.body.count).toBe(list.body.items.length);

      await t.http
        .get(`${templates}/${id}`)
        .set('Authorization', owner.auth)
        .expect(200, created.body);

      const updated = await t.http
        .put(`${templates}/${id}`)
        .set('Authorization', owner.auth)
        .send({ text: 'Now with {feature}' })
        .expect(200);
      expect(updated.body).toMatchObject({ id, name: 'Release', text: 'Now with {feature}' });
      expect(updated.body.updated_at >= created.body.updated_at).toBe(true);
      const { rows } = await t.db.query('SELECT name, text FROM post_templates WHERE id = $1', [
        id,
      ]);
      expect(rows).toEqual([{ name: 'Release', text: 'Now with {feature}' }]);

      await t.http.delete(`${templates}/${id}`).set('Authorization', owner.auth).expect(204);
      const gone = await t.db.query('SELECT 1 FROM post_templates WHERE id = $1', [id]);
      expect(gone.rowCount).toBe(0);
      const res = await t.http
        .get(`${templates}/${id}`)
        .set('Authorization', owner.auth)
        .expect(404);
      expect(res.body.error.code).toBe('template_not_found');
    });

    it('refuses a text longer than a post on create and update, and keeps what was there', async () => {
      const tooLong = 'й'.repeat(MAX_TEXT_LENGTH + 1);
      const refused = await t.http
        .post(templates)
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, name: 'Too long', text: tooLong })
        .expect(400);
      expect(refused.body.error.code).toBe('validation_failed');
      expect(refused.body.error.message).toContain('text');
      const kept = await t.http
        .post(templates)
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, name: 'At the limit', text: 'й'.repeat(MAX_TEXT_LENGTH) })
        .expect(201);
      await t.http
        .put(`${templates}/${kept.body.id}`)
        .set('Authorization', owner.auth)
        .send({ text: tooLong })
        .expect(400);
      const { rows } = await t.db.query(
        'SELECT char_length(text)::int AS length FROM post_templates WHERE id = $1',
        [kept.body.id],
      );
      expect(rows).toEqual([{ length: MAX_TEXT_LENGTH }]);
      const names = await t.db.query('SELECT 1 FROM post_templates WHERE name = $1', ['Too long']);
      expect(names.rowCount).toBe(0);
    });

    it('serves templates per project: another project’s template is not found', async () => {
      const stranger = await make.user();
      const strangerProject = await make.project(stranger);
      const foreign = await t.http
        .post(templates)
        .set('Authorization', stranger.auth)
        .send({ project_id: strangerProject.id, name: 'Theirs', text: 'secret' })
        .expect(201);
      for (const call of [
        t.http.get(`${templates}/${foreign.body.id}`),
        t.http.put(`${templates}/${foreign.body.id}`).send({ name: 'Mine' }),
        t.http.delete(`${templates}/${foreign.body.id}`),
      ]) {
        const res = await call.set('Authorization', owner.auth).expect(404);
        expect(res.body.error.code).toBe('template_not_found');
      }
      const list = await t.http
        .get(templates)
        .query({ project_id: strangerProject.id })
        .set('Authorization', owner.auth)
        .expect(404);
      expect(list.body.error.code).toBe('project_not_found');
      const { rows } = await t.db.query('SELECT name FROM post_templates WHERE id = $1', [
        foreign.body.id,
      ]);
      expect(rows).toEqual([{ name: 'Theirs' }]);
    });

    it('serves them to a member holding can_manage_templates', async () => {
      const editor = await make.user();
      await addMember(t, owner, project, editor, 'editor');
      const res = await t.http
        .post(templates)
        .set('Authorization', editor.auth)
        .send({ project_id: project.id, name: 'By editor', text: 'hello' })
        .expect(201);
      const list = await t.http
        .get(templates)
        .query({ project_id: project.id })
        .set('Authorization', owner.auth)
        .expect(200);
      expect(list.body.items.map((i: { id: number }) => i.id)).toContain(res.body.id);
    });

    it('generates a template with AI and stores it', async () => {
      ai.text = 'Weekly digest: {items}';
      const res = await t.http
        .post(`${templates}/generate`)
        .set('Authorization', owner.auth)
        .send({ project_id: project.id, prompt: 'A weekly digest\nwith links' })
        .expect(201);
      expect(res.body).toMatchObject({
        project_id: project.id,
        name: 'A weekly digest',
        text: 'Weekly digest: {items}',
      });
      expect(ai.calls[0].body.messages).toEqual([
        { role: 'system', content: TEMPLATE_INSTRUCTIONS },
        { role: 'user', content: 'A weekly digest\nwith links' },
      ]);
      const { rows } = await t.db.query(
        'SELECT text, created_by_id FROM post_templates WHERE id = $1',
        [res.body.id],
      );
      expect(rows).toEqual([{ text: 'Weekly digest: {items}', created_by_id: owner.id }]);
    });
  });

  describe('without a provider configured', () => {
    let bare: TestApp;
    let user: SignedInUser;
    let own: TestProject;

    beforeAll(async () => {
      bare = await startTestApp();
      ({ owner: user, project: own } = await new Factory(bare).owner());
    });

    afterAll(async () => {
      await bare?.close();
    });

    it.each([
      ['/api/posts/generate-post'],
      ['/api/posts/generate-image'],
      ['/api/posts/templates/generate'],
    ])('%s answers 503 ai_unavailable and stores nothing', async (path) => {
      const res = await bare.http
        .post(path)
        .set('Authorization', user.auth)
        .send({ project_id: own.id, prompt: 'anything' })
        .expect(503);
      expect(res.body.error.code).toBe('ai_unavailable');
      const { rows } = await bare.db.query(
        'SELECT (SELECT count(*) FROM post_templates)::int AS templates, (SELECT count(*) FROM media_assets)::int AS media',
      );
      expect(rows).toEqual([{ templates: 0, media: 0 }]);
    });
  });
});
