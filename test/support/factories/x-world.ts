import { request } from 'undici';
import { Factory, SignedInUser, TestProject } from './factories';
import { XStandIn, type XUser } from '../stand-ins/x-stand-in';
import { startTestApp, TestApp } from '../test-app';

/** An X account connected through OAuth: Herald's id, the user as X knows it, its channel ref. */
export interface XTestAccount {
  id: number;
  user: XUser;
  channelRef: string;
}

/** A test app with Herald's X app configured against the X stand-in. */
export interface XWorld {
  t: TestApp;
  x: XStandIn;
  make: Factory;
  /** The user connects their X account into the project, as an integrator's user does. */
  xAccount(owner: SignedInUser, project: TestProject, user?: XUser): Promise<XTestAccount>;
  close(): Promise<void>;
}

/** The browser at X's consent page: where X sends it back. */
export async function consent(authorizeUrl: string): Promise<URL> {
  const res = await request(authorizeUrl, { method: 'GET' });
  await res.body.dump();
  if (res.statusCode !== 302) throw new Error(`The consent page answered ${res.statusCode}`);
  return new URL(String(res.headers.location));
}

export async function startWithX(env: Record<string, string> = {}): Promise<XWorld> {
  const x = await new XStandIn().start();
  let t: TestApp;
  try {
    t = await startTestApp({ ...x.env(), RATE_LIMIT_OTHER: '1000', ...env });
  } catch (error) {
    await x.stop();
    throw error;
  }
  x.registerCallback(`${t.config.publicBaseUrl}/api/oauth/x/callback`);
  const make = new Factory(t);
  return {
    t,
    x,
    make,
    async xAccount(owner, project, user = x.addUser()) {
      x.signIn(user);
      const started = await t.http
        .post(`/api/projects/${project.id}/connections`)
        .set('Authorization', owner.auth)
        .send({ platform: 'x', redirect_url: 'https://app.example.com/done' })
        .expect(201);
      const back = await consent(started.body.authorize_url as string);
      const done = await t.http.get(`${back.pathname}${back.search}`).expect(302);
      const location = new URL(String(done.headers.location));
      const accountId = Number(location.searchParams.get('account_id'));
      if (location.searchParams.get('status') !== 'connected' || !accountId)
        throw new Error(`The connection ended ${location.search}`);
      return { id: accountId, user, channelRef: `x:${accountId}:${user.id}` };
    },
    async close() {
      await t.close();
      await x.stop();
    },
  };
}
