import { Factory, type SignedInUser, type TestProject } from './factories';
import { projectApi } from './project-api';
import { startTestApp, type TestApp } from '../test-app';

/** Quick retries and sweeps, and request limits out of the way, for both Bluesky specs. */
export const BLUESKY_FAST = {
  PUBLICATION_RETRY_BASE_MS: '50',
  PUBLICATION_SWEEP_INTERVAL_MS: '300',
  WEBHOOK_RETRY_DELAYS_MS: '600000',
  RATE_LIMIT_CREATE_POST: '1000',
  RATE_LIMIT_PUBLISH: '1000',
  RATE_LIMIT_OTHER: '1000',
  RATE_LIMIT_UPLOAD: '1000',
};

/** An account as the service (stand-in or reference PDS) made it. */
export interface BlueskyLogin {
  did: string;
  handle: string;
  appPassword: string;
}

export interface ConnectedBluesky<A extends BlueskyLogin> {
  id: number;
  did: string;
  handle: string;
  ref: string;
  account: A;
}

/** An app whose Bluesky service is `service`, with an owner, a project and a key. */
export interface BlueskyWorld {
  t: TestApp;
  make: Factory;
  owner: SignedInUser;
  project: TestProject;
  key: string;
  /** The body of `POST /api/accounts` for `account`, in the world's project. */
  connectBody(account: BlueskyLogin, extra?: Record<string, unknown>): Record<string, unknown>;
  /** Connects `account` with its app password, as a user does. */
  connect<A extends BlueskyLogin>(
    account: A,
    extra?: Record<string, unknown>,
  ): Promise<ConnectedBluesky<A>>;
  /** Creates a post to `target` published now; its id. */
  publish(target: { ref: string }, body: Record<string, unknown>): Promise<number>;
  close(): Promise<void>;
}

/** `startTestApp` with `env`; the service is stopped with the app, or at once if it fails to start. */
export async function startWithBluesky(
  service: { stop(): Promise<void> },
  projectName: string,
  env: Record<string, string>,
): Promise<BlueskyWorld> {
  let t: TestApp;
  try {
    t = await startTestApp(env);
  } catch (error) {
    await service.stop();
    throw error;
  }
  const make = new Factory(t);
  const made = await make.owner(projectName).catch(async (error: unknown) => {
    await t.close();
    await service.stop();
    throw error;
  });
  const { owner, project, key } = made;
  const { api } = projectApi(() => ({ t, project, key }));
  const connectBody = (account: BlueskyLogin, extra: Record<string, unknown> = {}) => ({
    project_id: project.id,
    platform: 'bluesky',
    identifier: account.handle,
    app_password: account.appPassword,
    ...extra,
  });
  return {
    t,
    make,
    owner,
    project,
    key,
    connectBody,
    async connect(account, extra = {}) {
      const res = await t.http
        .post('/api/accounts')
        .set('Authorization', owner.auth)
        .send(connectBody(account, extra))
        .expect(201);
      const id = (res.body as { id: number }).id;
      const { did, handle } = account;
      return { id, did, handle, ref: `bluesky:${id}:${did}`, account };
    },
    async publish(target, body) {
      const res = await api('post', '/posts')
        .send({ targets: [{ channel_ref: target.ref }], publish_now: true, ...body })
        .expect(201);
      return res.body.id as number;
    },
    async close() {
      await t.close();
      await service.stop();
    },
  };
}
