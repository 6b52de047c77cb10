import { freePort } from '../free-port';
import {
  FacebookGraphServer,
  type FacebookPageRecord,
  type FacebookUser,
} from '../stand-ins/facebook-graph-server';
import { startTestApp, type TestApp } from '../test-app';
import { Factory, type SignedInUser, type TestProject } from './factories';
import { connectByConsent } from './threads-world';

export const FACEBOOK_APP = { id: '1234567890123456', secret: 'facebook-app-secret-0123456789' };

/** Herald listens here, the address Meta fetches media from (allowed by the operator's list). */
const HERALD_HOST = '127.0.0.2';

export type MetaProduct = 'facebook' | 'instagram';

/** A Facebook user who manages pages, each with a linked Instagram account, connected. */
export interface FacebookConnection {
  id: number;
  user: FacebookUser;
  pages: FacebookPageRecord[];
  /** One channel ref per page (facebook) or per linked account (instagram), in order. */
  refs: string[];
}

export interface FacebookScene {
  owner: SignedInUser;
  project: TestProject;
  key: string;
  /** A new user with `pages` pages (each with an Instagram account) consents and is connected. */
  connect(product: MetaProduct, pages?: number): Promise<FacebookConnection>;
  /** A post to `ref` published now through the public API (with `apiKey`, else the scene's). */
  publish(ref: string, body: Record<string, unknown>, apiKey?: string): Promise<number>;
}

/**
 * A Herald that Meta can reach: it listens on 127.0.0.2 with PUBLIC_BASE_URL there (the operator's
 * allow list names it), its Facebook app configured and pointed at the stand-in Graph API.
 */
export interface FacebookWorld {
  t: TestApp;
  graph: FacebookGraphServer;
  make: Factory;
  publicBaseUrl: string;
  env: Record<string, string>;
  connect(
    owner: SignedInUser,
    project: TestProject,
    product: MetaProduct,
    user: FacebookUser,
    pages: FacebookPageRecord[],
  ): Promise<FacebookConnection>;
  scene(name: string): Promise<FacebookScene>;
  close(): Promise<void>;
}

export async function startWithFacebook(env: Record<string, string> = {}): Promise<FacebookWorld> {
  const port = await freePort();
  const publicBaseUrl = `http://${HERALD_HOST}:${port}`;
  const graph = await new FacebookGraphServer({
    ...FACEBOOK_APP,
    redirectUris: ['facebook', 'instagram'].map(
      (product) => `${publicBaseUrl}/api/oauth/${product}/callback`,
    ),
  }).start();
  const heraldEnv: Record<string, string> = {
    RATE_LIMIT_UPLOAD: '1000',
    RATE_LIMIT_CREATE_POST: '1000',
    RATE_LIMIT_PUBLISH: '1000',
    RATE_LIMIT_OTHER: '1000',
    PUBLIC_BASE_URL: publicBaseUrl,
    OUTBOUND_ALLOW_CIDRS: `${HERALD_HOST}/32`,
    FACEBOOK_APP_ID: FACEBOOK_APP.id,
    FACEBOOK_APP_SECRET: FACEBOOK_APP.secret,
    FACEBOOK_GRAPH_URL: graph.versioned,
    FACEBOOK_DIALOG_URL: graph.versioned,
    ...env,
  };
  let t: TestApp;
  try {
    t = await startTestApp(heraldEnv);
    await t.app.listen(port, HERALD_HOST);
  } catch (error) {
    await graph.stop();
    throw error;
  }
  const make = new Factory(t);
  let users = 0;
  const world: FacebookWorld = {
    t,
    graph,
    make,
    publicBaseUrl,
    env: heraldEnv,
    async scene(name) {
      const { owner, project, key } = await make.owner(name);
      return {
        owner,
        project,
        key,
        connect(product, count = 1) {
          users++;
          const base = `${String(port).padStart(5, '0')}${String(users).padStart(4, '0')}`;
          const user = { id: `10000${base}`, name: `Facebook user ${users}` };
          const pages = Array.from({ length: count }, (_, i) => ({
            id: `10800${base}${i}`,
            name: `Page ${users}.${i + 1}`,
            instagram: { id: `17841${base}${i}`, username: `account_${users}_${i + 1}` },
          }));
          return world.connect(owner, project, product, user, pages);
        },
        async publish(ref, body, apiKey = key) {
          const res = await t.http
            .post(`/api/public/v1/projects/${project.id}/posts`)
            .set('Authorization', `Bearer ${apiKey}`)
            .send({ ...body, targets: [{ channel_ref: ref }], publish_now: true })
            .expect(201);
          return res.body.id as number;
        },
      };
    },
    async connect(owner, project, product, user, pages) {
      graph.signIn(user, pages);
      const id = await connectByConsent(t, owner, project, product, user.id);
      const refs = pages.flatMap((page) => {
        const channel = product === 'facebook' ? page.id : page.instagram?.id;
        return channel ? [`${product}:${id}:${channel}`] : [];
      });
      return { id, user, pages, refs };
    },
    async close() {
      await t.close();
      await graph.stop();
    },
  };
  return world;
}
