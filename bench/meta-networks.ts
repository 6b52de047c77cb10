/**
 * Meta's three networks in the mixed-delivery benchmark: their stand-ins with the published limits
 * enforced and containers that take 1 to 5 s to process, the accounts connected through OAuth, and
 * the deliveries the stand-ins saw.
 */
import { request } from 'undici';
import { FacebookGraphServer } from '../test/support/stand-ins/facebook-graph-server';
import { ThreadsServer } from '../test/support/stand-ins/threads-server';

export type MetaNetwork = 'facebook' | 'instagram' | 'threads';

export const META_NETWORKS: MetaNetwork[] = ['facebook', 'instagram', 'threads'];

const APP = { id: '1234567890123456', secret: 'bench-facebook-app-secret' };
const THREADS_APP = { id: '990602627938098', secret: 'bench-threads-app-secret' };

/** Every container (image or video) processes this long at Meta, a random time in the range. */
const PROCESSING = {
  minMs: Number(process.env.BENCH_META_PROCESSING_MIN_MS ?? 1_000),
  maxMs: Number(process.env.BENCH_META_PROCESSING_MAX_MS ?? 5_000),
};

/** Meta's page limit for a page with one engaged user: 4,800 calls in 24 hours, 200 an hour. */
export const FACEBOOK_PAGE_CALLS_PER_HOUR = 200;

export interface MetaStands {
  graph: FacebookGraphServer;
  threads: ThreadsServer;
}

export async function startMetaStands(latencyMs: number, jitterMs: number): Promise<MetaStands> {
  const graph = (await new FacebookGraphServer({ ...APP, redirectUris: [] }).start()).answerAfter(
    latencyMs,
    jitterMs,
  );
  graph.processing = PROCESSING;
  graph.pageCallsPerHour = FACEBOOK_PAGE_CALLS_PER_HOUR;
  const threads = (
    await new ThreadsServer({ ...THREADS_APP, redirectUri: '' }).start()
  ).answerAfter(latencyMs, jitterMs);
  threads.processing = PROCESSING;
  return { graph, threads };
}

/** Herald's settings for both apps, and the callbacks the stand-ins accept. */
export function metaEnv(stands: MetaStands, base: string): Record<string, string> {
  stands.graph.app.redirectUris.push(
    `${base}/api/oauth/facebook/callback`,
    `${base}/api/oauth/instagram/callback`,
  );
  stands.threads.app.redirectUri = `${base}/api/oauth/threads/callback`;
  return {
    FACEBOOK_APP_ID: APP.id,
    FACEBOOK_APP_SECRET: APP.secret,
    FACEBOOK_GRAPH_URL: stands.graph.versioned,
    FACEBOOK_DIALOG_URL: stands.graph.versioned,
    THREADS_APP_ID: THREADS_APP.id,
    THREADS_APP_SECRET: THREADS_APP.secret,
    THREADS_GRAPH_URL: stands.threads.url,
    THREADS_AUTHORIZE_URL: `${stands.threads.url}/oauth/authorize`,
  };
}

/**
 * Connects one account of `network` through its OAuth flow, as a user would (the stand-in's consent
 * page has one signed-in user at a time): its account id and its one channel's ref.
 */
export async function connectMeta(
  stands: MetaStands,
  network: MetaNetwork,
  index: number,
  start: (network: MetaNetwork) => Promise<string>,
  base: string,
): Promise<string> {
  const n = String(index).padStart(5, '0');
  const user = { id: `1000000000${n}`, name: `Bench ${network} ${index}` };
  let channel: string;
  if (network === 'threads') {
    channel = `178414000${n}`;
    stands.threads.signIn({ id: channel, username: `bench_${index}` });
  } else {
    const page = {
      id: `1080000000${n}`,
      name: `Bench page ${index}`,
      instagram: { id: `178410000${n}`, username: `bench_${index}` },
    };
    channel = network === 'facebook' ? page.id : page.instagram.id;
    stands.graph.signIn({ ...user, id: `${user.id}${network === 'facebook' ? 1 : 2}` }, [page]);
  }
  const consent = await request(await start(network));
  await consent.body.dump();
  const back = new URL(String(consent.headers.location));
  const done = await request(`${base}${back.pathname}${back.search}`);
  await done.body.dump();
  const id = new URL(String(done.headers.location)).searchParams.get('account_id');
  if (!id) throw new Error(`${network}: no account after the callback`);
  return `${network}:${id}:${channel}`;
}

/** The messages each stand-in made (its text or caption, and when), its publishing calls and limits. */
export function metaDeliveries(
  stands: MetaStands,
  network: MetaNetwork,
  since: number,
): { made: { text: string; at: number }[]; sends: number; limited: number } {
  const { graph, threads } = stands;
  if (network === 'facebook')
    return {
      made: graph.posts.filter((p) => p.at >= since).map((p) => ({ text: p.message, at: p.at })),
      sends: graph.calls.filter((c) => c.route === 'feed' && c.at >= since).length,
      limited: graph.calls.filter((c) => c.route === 'feed' && c.at >= since && c.limited).length,
    };
  if (network === 'instagram')
    return {
      made: graph.media
        .filter((m) => m.at >= since)
        .map((m) => ({ text: m.container.params.caption ?? '', at: m.at })),
      sends: graph.calls.filter((c) => c.route === 'publish' && c.at >= since).length,
      limited: graph.calls.filter(
        (c) => ['publish', 'create_container'].includes(c.route) && c.at >= since && c.limited,
      ).length,
    };
  return {
    made: threads.posts
      .filter((p) => p.at >= since)
      .map((p) => ({ text: p.container.params.text ?? '', at: p.at })),
    sends: threads.callsOf('publish').filter((c) => (c.at ?? 0) >= since).length,
    limited: threads.overQuota,
  };
}
