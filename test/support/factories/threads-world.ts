import { request } from 'undici';
import { freePort } from '../free-port';
import { ThreadsServer, type Profile } from '../stand-ins/threads-server';
import { startTestApp, type TestApp } from '../test-app';
import { Factory, type SignedInUser, type TestProject } from './factories';

export const THREADS_APP = { id: '990602627938098', secret: 'threads-app-secret-0123456789' };

/** Herald listens here, the address Meta fetches media from (allowed by the operator's list). */
const HERALD_HOST = '127.0.0.2';

/** A project of its own, and the steps its specs repeat. */
export interface ThreadsScene {
  owner: SignedInUser;
  project: TestProject;
  key: string;
  /** A new profile (unique in the world) consents and is connected. */
  connect(): Promise<ThreadsAccount>;
  /** A post to `to` published now through the public API (with `apiKey`, else the scene's). */
  publish(to: ThreadsAccount, body: Record<string, unknown>, apiKey?: string): Promise<number>;
}

export interface ThreadsAccount {
  id: number;
  profile: Profile;
  channelRef: string;
}

/**
 * A Herald that Threads can reach: it listens on 127.0.0.2 with PUBLIC_BASE_URL there (the
 * operator's allow list names it), its Threads app configured and pointed at the stand-in.
 */
export interface ThreadsWorld {
  t: TestApp;
  threads: ThreadsServer;
  make: Factory;
  publicBaseUrl: string;
  /** The variables the app was started with (another instance of it starts with them). */
  env: Record<string, string>;
  /** The owner starts a connection, `profile` consents at Threads, the browser comes back. */
  connect(owner: SignedInUser, project: TestProject, profile: Profile): Promise<ThreadsAccount>;
  /** An owner with a project and a key, to connect profiles and publish to them. */
  scene(name: string): Promise<ThreadsScene>;
  close(): Promise<void>;
}

export async function startWithThreads(env: Record<string, string> = {}): Promise<ThreadsWorld> {
  const port = await freePort();
  const publicBaseUrl = `http://${HERALD_HOST}:${port}`;
  const threads = await new ThreadsServer({
    ...THREADS_APP,
    redirectUri: `${publicBaseUrl}/api/oauth/threads/callback`,
  }).start();
  const heraldEnv: Record<string, string> = {
    // Specs publish many posts from one key; the specs of these limits set them low themselves.
    RATE_LIMIT_UPLOAD: '1000',
    RATE_LIMIT_CREATE_POST: '1000',
    RATE_LIMIT_PUBLISH: '1000',
    RATE_LIMIT_OTHER: '1000',
    PUBLIC_BASE_URL: publicBaseUrl,
    OUTBOUND_ALLOW_CIDRS: `${HERALD_HOST}/32`,
    THREADS_APP_ID: THREADS_APP.id,
    THREADS_APP_SECRET: THREADS_APP.secret,
    THREADS_GRAPH_URL: threads.url,
    THREADS_AUTHORIZE_URL: `${threads.url}/oauth/authorize`,
    ...env,
  };
  let t: TestApp;
  try {
    t = await startTestApp({
      ...heraldEnv,
    });
    await t.app.listen(port, HERALD_HOST);
  } catch (error) {
    await threads.stop();
    throw error;
  }
  const make = new Factory(t);
  let profiles = 0;
  const world: ThreadsWorld = {
    t,
    threads,
    make,
    publicBaseUrl,
    env: heraldEnv,
    async scene(name) {
      const { owner, project, key } = await make.owner(name);
      return {
        owner,
        project,
        key,
        connect: () => {
          profiles++;
          const id = `17841${String(port).padStart(5, '0')}${String(profiles).padStart(5, '0')}`;
          return world.connect(owner, project, { id, username: `profile_${profiles}` });
        },
        async publish(to, body, apiKey = key) {
          const res = await t.http
            .post(`/api/public/v1/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${apiKey}`)
            .send({ ...body, targets: [{ channel_ref: to.channelRef }], publish_now: true })
            .expect(201);
          return res.body.id as number;
        },
      };
    },
    async connect(owner, project, profile) {
      threads.signIn(profile);
      const id = await connectByConsent(t, owner, project, 'threads', profile.id);
      return { id, profile, channelRef: `threads:${id}:${profile.id}` };
    },
    async close() {
      await t.close();
      await threads.stop();
    },
  };
  return world;
}

/**
 * The owner starts a connection of `platform`, the signed-in user consents at the platform's
 * stand-in, and the browser comes back to the callback: the id of the account of `externalId`.
 */
export async function connectByConsent(
  t: TestApp,
  owner: SignedInUser,
  project: TestProject,
  platform: string,
  externalId: string,
): Promise<number> {
  const started = await t.http
    .post(`/api/projects/${project.id}/connections`)
    .set('Authorization', owner.auth)
    .send({ platform })
    .expect(201);
  const back = await consent(started.body.authorize_url as string);
  const done = await t.http.get(`${back.pathname}${back.search}`).expect(200);
  const { rows } = await t.db.query(
    `SELECT id FROM accounts
      WHERE project_id = $1 AND platform = $2 AND external_id = $3 AND removed_at IS NULL`,
    [project.id, platform, externalId],
  );
  if (!rows[0]) throw new Error(`No account after the callback: ${done.text}`);
  return rows[0].id as number;
}

/** The browser at Threads' Authorization Window: where Threads sends it back (its `#_` dropped). */
export async function consent(authorizeUrl: string): Promise<URL> {
  const res = await request(authorizeUrl, { method: 'GET' });
  await res.body.dump();
  if (res.statusCode !== 302)
    throw new Error(`The Authorization Window answered ${res.statusCode}`);
  const back = new URL(String(res.headers.location));
  back.hash = '';
  return back;
}
