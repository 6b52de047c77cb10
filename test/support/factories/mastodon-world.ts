import { Factory, SignedInUser, TestChannel, TestProject } from './factories';
import { MastodonStandIn } from '../stand-ins/mastodon-stand-in';
import { startTestApp, TestApp } from '../test-app';

/** A Mastodon account's one channel as channel lists show it: its link and its instance's limits. */
export interface MastodonTestChannel extends TestChannel {
  url: string | null;
  limits: {
    text_max: number;
    text_unit: string;
    media_max: number;
    media_kinds: string[];
    media_max_bytes: Record<string, number>;
  };
}

/** A connected account: Herald's id, the token, the account as the instance knows it, its channel. */
export interface MastodonTestAccount {
  id: number;
  token: string;
  mastodonId: string;
  profileUrl: string;
  channel: MastodonTestChannel;
}

/**
 * A test app whose outbound rules let it call loopback (where the Mastodon stand-in listens, as
 * an instance's address given by a user), with the steps that connect Mastodon accounts through
 * the HTTP API.
 */
export interface MastodonWorld {
  t: TestApp;
  mastodon: MastodonStandIn;
  make: Factory;
  /**
   * Connects an account registered with `instance` (the world's stand-in unless given) and finds
   * its channel in the project's channel list (read with `key`).
   */
  mastodonAccount(
    owner: SignedInUser,
    project: TestProject,
    key: string,
    instance?: MastodonStandIn,
  ): Promise<MastodonTestAccount>;
  close(): Promise<void>;
}

/** `startTestApp` with loopback allowed as an outbound address (127.0.0.1 only); `env` adds to it. */
export async function startWithMastodon(env: Record<string, string> = {}): Promise<MastodonWorld> {
  const mastodon = await new MastodonStandIn().start();
  let t: TestApp;
  try {
    t = await startTestApp({ OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32', ...env });
  } catch (error) {
    await mastodon.stop();
    throw error;
  }
  const make = new Factory(t, undefined, { mastodon });
  return {
    t,
    mastodon,
    make,
    async mastodonAccount(owner, project, key, instance = mastodon) {
      const { id, token } = await make.account(owner, project, {
        platform: 'mastodon',
        standIn: instance,
      });
      const account = instance.accountOf(token);
      const list = await t.http
        .get(`/api/public/v1/projects/${project.id}/channels`)
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      const channel = (list.body.items as MastodonTestChannel[]).find(
        (item) => item.id === `mastodon:${id}:${account.id}`,
      );
      if (!channel) throw new Error(`The account ${id} came without its channel`);
      return { id, token, mastodonId: account.id, profileUrl: account.url, channel };
    },
    async close() {
      await t.close();
      await mastodon.stop();
    },
  };
}
