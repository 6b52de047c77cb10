import type { TestApp } from '../test-app';
import { fixture } from './media-helpers';

/**
 * The public API of one project, as a spec calls it: `api(method, path)` under
 * `/api/public/v1/projects/{id}` with the project's key (or another), and `upload(name)` of a media
 * fixture (or given bytes) answering the new media id. `current` is read at each call, so a spec can
 * build these before its `beforeAll` has made the app, the project and the key.
 */
export function projectApi(current: () => { t: TestApp; project: { id: number }; key: string }) {
  const api = (method: 'get' | 'post' | 'patch', path: string, apiKey?: string) => {
    const { t, project, key } = current();
    return t.http[method](`/api/public/v1/projects/${project.id}${path}`).set(
      'Authorization',
      `Bearer ${apiKey ?? key}`,
    );
  };
  const upload = async (name: string, bytes: Buffer = fixture(name)): Promise<number> => {
    const res = await api('post', '/media').attach('files', bytes, name).expect(201);
    return (res.body as { items: { id: number }[] }).items[0].id;
  };
  return { api, upload };
}
