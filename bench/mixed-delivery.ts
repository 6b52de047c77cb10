/**
 * Delivery to Telegram, Discord, Mastodon, Bluesky, X and LinkedIn at once, each stand-in enforcing its
 * platform's published limits and answering in 200 ± 50 ms; Herald from the build as one `api` and
 * ONE `worker` process. Prints per platform what it delivered against the ceiling those limits
 * allow, the rate-limit answers, duplicates, lost and still-waiting posts, delays, a burst's effect
 * on a quiet account, and the worker's CPU per delivered message (see bench/README.md).
 *
 *   npm run build
 *   npx ts-node --transpile-only bench/mixed-delivery.ts [all|mixed|cpu]
 *
 * Needs the PostgreSQL and Redis of the tests (TEST_ADMIN_DATABASE_URL, TEST_REDIS_URL).
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { FormData, request } from 'undici';
import { loadConfig } from '../src/infrastructure/config/config';
import { BlueskyStandIn } from '../test/support/stand-ins/bluesky-stand-in';
import { dropTestDatabase } from '../test/support/databases';
import { DiscordStandIn } from '../test/support/stand-ins/discord-stand-in';
import { MastodonStandIn } from '../test/support/stand-ins/mastodon-stand-in';
import { deleteRedisKeys } from '../test/support/redis-keys';
import { TelegramStandIn } from '../test/support/stand-ins/telegram-stand-in';
import { XStandIn } from '../test/support/stand-ins/x-stand-in';
import { LinkedInStandIn } from '../test/support/stand-ins/linkedin-stand-in';
import { fixture } from '../test/support/factories/media-helpers';
import { createMigratedDatabase } from '../test/support/test-app';
import {
  connectMeta,
  FACEBOOK_PAGE_CALLS_PER_HOUR,
  META_NETWORKS,
  metaDeliveries,
  metaEnv,
  startMetaStands,
  type MetaNetwork,
  type MetaStands,
} from './meta-networks';
import {
  cpuSeconds,
  freePort,
  heraldNodeFlags,
  postJson,
  waitUntilAnswers,
  registerAdmin,
  benchHeraldEnv,
} from './support';

const MODE = process.argv[2] ?? 'all';
/** Seconds measured, after the warm-up. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 120);
/**
 * Seconds offered before the measured window: every channel has had its first post (the first
 * posts are spread over one of its sending intervals, the longest being Mastodon's 36 s) and
 * sends at its limit from then on.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 40);
/** Posts offered to a busy account, as a share of its ceiling. */
const OFFER = Number(process.env.BENCH_OFFER ?? 1.15);
/** Posts offered to the quiet account of each platform, as a share of its ceiling. */
const QUIET_OFFER = 0.5;
/** Seconds at most to wait, after the offer stops, for every post to be delivered. */
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 120);
/** Seconds of each platform's run alone, for the worker's CPU per message. */
const CPU_SECONDS = Number(process.env.BENCH_CPU_SECONDS ?? 40);
/** Posts offered to a platform alone, as a share of its ceiling: no backlog, no waiting. */
const CPU_OFFER = 0.9;
const IDLE_SECONDS = 10;
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 200);
const JITTER_MS = Number(process.env.BENCH_JITTER_MS ?? 50);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 128);
const MASTODON_ACCOUNTS = Number(process.env.BENCH_MASTODON_ACCOUNTS ?? 100);
const BLUESKY_ACCOUNTS = Number(process.env.BENCH_BLUESKY_ACCOUNTS ?? 10);
/**
 * Channels of each busy Telegram bot and Discord bot, comma-separated; the first bot gets the
 * burst. Over 90 chats a Telegram bot is held by its 30 messages a second rather than its chats'
 * 20 a minute; over 50 channels a Discord bot by its 50 requests a second. The defaults keep the
 * benchmark's creates (about 50 a second) within what a shared 2-core machine serves beside the
 * delivery.
 */
const TELEGRAM_CHANNELS = (process.env.BENCH_TELEGRAM_CHANNELS ?? '30,15').split(',').map(Number);
const DISCORD_CHANNELS = (process.env.BENCH_DISCORD_CHANNELS ?? '10,5').split(',').map(Number);
/** Posts of the burst to the first Telegram bot's chats (Discord's: 60 to one channel). */
const TELEGRAM_BURST = Number(process.env.BENCH_TELEGRAM_BURST ?? 200);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DIST_DIR = resolve(process.env.BENCH_DIST_DIR ?? join(__dirname, '..', 'dist'));

type Platform = 'telegram' | 'discord' | 'mastodon' | 'bluesky' | 'x' | 'linkedin' | MetaNetwork;
const PLATFORMS: Platform[] = [
  'telegram',
  'discord',
  'mastodon',
  'bluesky',
  'x',
  'linkedin',
  ...META_NETWORKS,
];
/** Where a post takes one first comment, not a thread: its posts stay single in the offer. */
const SINGLE_POSTS = new Set<Platform>(['linkedin', 'facebook', 'instagram']);
/** Accounts of each of Meta's networks, each with one channel. */
const META_ACCOUNTS = Number(process.env.BENCH_META_ACCOUNTS ?? 20);
const X_USERS = Number(process.env.BENCH_X_USERS ?? 20);
/** `0`: no webhook endpoint; else one receiver answering at once gets every post event. */
const WEBHOOKS = process.env.BENCH_WEBHOOKS !== '0';
const LINKEDIN_MEMBERS = Number(process.env.BENCH_LINKEDIN_MEMBERS ?? 50);

/** A limit as the platform publishes it: `limit` messages in any `windowS` seconds. */
interface Limit {
  limit: number;
  windowS: number;
}

/** Each platform's published limits (the platform's documents, not Herald's settings). */
const PUBLISHED: Record<Platform, { account: Limit; channel: Limit; words: string }> = {
  telegram: {
    account: { limit: 30, windowS: 1 },
    channel: { limit: 20, windowS: 60 },
    words: '30 msg/s per bot, 20/min per chat',
  },
  discord: {
    account: { limit: 50, windowS: 1 },
    channel: { limit: 5, windowS: 5 },
    words: '50 requests/s per bot, 5 messages per 5 s per channel',
  },
  mastodon: {
    account: { limit: 300, windowS: 3 * 3600 },
    channel: { limit: 300, windowS: 3 * 3600 },
    words: '300 statuses per 3 h per account',
  },
  bluesky: {
    account: { limit: 5000 / 3, windowS: 3600 },
    channel: { limit: 5000 / 3, windowS: 3600 },
    words: '5000 points/h per account, a post costing 3',
  },
  x: {
    account: { limit: 100, windowS: 900 },
    channel: { limit: 100, windowS: 900 },
    words: '100 posts per 15 min per user',
  },
  linkedin: {
    account: { limit: 150, windowS: 86_400 },
    channel: { limit: 150, windowS: 86_400 },
    words: '150 posts a day per member',
  },
  facebook: {
    account: { limit: FACEBOOK_PAGE_CALLS_PER_HOUR, windowS: 3600 },
    channel: { limit: FACEBOOK_PAGE_CALLS_PER_HOUR, windowS: 3600 },
    words: '4,800 calls per engaged user in 24 h: 200/h for a page with one',
  },
  instagram: {
    account: { limit: 100, windowS: 86_400 },
    channel: { limit: 100, windowS: 86_400 },
    words: '100 API posts per account in 24 h',
  },
  threads: {
    account: { limit: 250, windowS: 86_400 },
    channel: { limit: 250, windowS: 86_400 },
    words: '250 posts per profile in 24 h',
  },
};

/**
 * An account of the run: how many channels; busy (offered more than its ceiling), quiet (offered
 * half of it) or fill (no steady stream: a burst beyond what its window allows, for the platforms
 * whose window is longer than the run). Quiet and fill accounts are left out of the ceiling.
 */
interface AccountPlan {
  channels: number;
  role?: 'quiet' | 'fill';
  /** Posts created all at once a third into the measured window, to all its channels or one. */
  burst?: { posts: number; oneChannel: boolean };
}

/** Posts beyond the window's allowance offered to a fill account. */
const FILL_EXTRA = 10;

const PLAN: Record<Platform, AccountPlan[]> = {
  telegram: [
    ...TELEGRAM_CHANNELS.map((channels, i) => ({
      channels,
      ...(i === 0 ? { burst: { posts: TELEGRAM_BURST, oneChannel: false } } : {}),
    })),
    { channels: 10, role: 'quiet' },
  ],
  discord: [
    ...DISCORD_CHANNELS.map((channels, i) => ({
      channels,
      ...(i === 0 ? { burst: { posts: 60, oneChannel: true } } : {}),
    })),
    { channels: 4, role: 'quiet' },
  ],
  mastodon: windowPlan('mastodon', MASTODON_ACCOUNTS),
  x: windowPlan('x', X_USERS),
  linkedin: windowPlan('linkedin', LINKEDIN_MEMBERS),
  facebook: windowPlan('facebook', META_ACCOUNTS),
  instagram: windowPlan('instagram', META_ACCOUNTS),
  threads: windowPlan('threads', META_ACCOUNTS),
  bluesky: windowPlan('bluesky', BLUESKY_ACCOUNTS),
};

/**
 * For a platform whose window is longer than the run: `busy` accounts of one channel, a quiet one,
 * and a fill one whose burst is its window's whole allowance and more.
 */
function windowPlan(platform: Platform, busy: number): AccountPlan[] {
  const allowance = Math.floor(PUBLISHED[platform].channel.limit);
  return [
    ...Array.from({ length: busy }, () => ({ channels: 1 })),
    { channels: 1, role: 'quiet' },
    { channels: 1, role: 'fill', burst: { posts: allowance + FILL_EXTRA, oneChannel: true } },
  ];
}

/** What the published limits let one account send per second, sustained (limit / window). */
function ceilingRate(platform: Platform, plan: AccountPlan): number {
  const { account, channel } = PUBLISHED[platform];
  return Math.min(
    account.limit / account.windowS,
    (plan.channels * channel.limit) / channel.windowS,
  );
}

interface Account {
  platform: Platform;
  index: number;
  plan: AccountPlan;
  refs: string[];
}

interface Offered {
  seq: number;
  platform: Platform;
  account: Account;
  quiet: boolean;
  burst: boolean;
  /** When the create request (publish_now) left, ms since the epoch; and when it was due. */
  at: number;
  due: number;
  id?: number;
  error?: string;
}

interface Delivery {
  seq: number;
  /** 0 the post itself, n its thread's n-th item. */
  item: number;
  at: number;
}

/** One post in this many is a thread (the post and THREAD_ITEMS further items). */
const THREAD_EVERY = Number(process.env.BENCH_THREAD_EVERY ?? 10);
const THREAD_ITEMS = 4;

/** On average over the offer. */
const MESSAGES_PER_POST = 1 + THREAD_ITEMS / THREAD_EVERY;

/** The messages a post becomes: a thread's items count as messages like any other. */
function messagesOf(seq: number, platform?: Platform): number {
  // A post that takes one first comment, not a thread, stays single.
  if (platform && SINGLE_POSTS.has(platform)) return 1;
  return seq % THREAD_EVERY === 0 ? 1 + THREAD_ITEMS : 1;
}

interface Stands {
  telegram: TelegramStandIn;
  discord: DiscordStandIn;
  mastodon: MastodonStandIn;
  bluesky: BlueskyStandIn;
  x: XStandIn;
  linkedin: LinkedInStandIn;
  graph: MetaStands['graph'];
  threads: MetaStands['threads'];
}

/** The post and thread item a message's text marks. */
function marked(text: unknown): { seq: number; item: number } {
  const match = /^mx-(\d+)(?:-(\d+))?$/.exec(String(text));
  return { seq: match ? Number(match[1]) : -1, item: match?.[2] ? Number(match[2]) : 0 };
}

/**
 * Instagram's and Threads' containers that had to process, by post: from when, until when. A post
 * whose container is processing at Meta cannot be published, whatever its limits allow.
 */
function processingAtMeta(stands: Stands, platform: Platform) {
  const containers =
    platform === 'instagram'
      ? [...stands.graph.containers.values()].map((c) => ({ ...c, text: c.params.caption }))
      : platform === 'threads'
        ? [...stands.threads.containers.values()].map((c) => ({ ...c, text: c.params.text }))
        : [];
  const bySeq = new Map<number, { since: number; readyAt: number }[]>();
  for (const c of containers) {
    if (c.processingSince === undefined) continue;
    const { seq } = marked(c.text);
    bySeq.set(seq, [
      ...(bySeq.get(seq) ?? []),
      { since: c.processingSince, readyAt: c.readyAt ?? 0 },
    ]);
  }
  return bySeq;
}

/** Every stand-in's deliveries (one per message made, marked by the post's text), and its sends. */
function deliveries(stands: Stands, platform: Platform, since = 0) {
  const out: Delivery[] = [];
  let sends = 0;
  let limited = 0;
  switch (platform) {
    case 'telegram':
      for (const call of stands.telegram.calls) {
        if (call.method !== 'sendMessage' || call.at < since) continue;
        sends++;
        if (call.rateLimited) limited++;
        else out.push({ ...marked(call.params.text), at: call.at });
      }
      break;
    case 'discord':
      for (const call of stands.discord.calls) {
        if (call.route !== 'createMessage' || call.at < since) continue;
        sends++;
        if (call.rateLimited || call.status === 429) limited++;
      }
      for (const message of stands.discord.messages)
        if (message.at >= since) out.push({ ...marked(message.content), at: message.at });
      break;
    case 'mastodon': {
      const firstAnswered = new Map<string, number>();
      for (const call of stands.mastodon.calls) {
        if (call.route !== 'post_status' || call.at < since) continue;
        sends++;
        if (call.status === 429) limited++;
        const key = String(call.headers['idempotency-key']);
        if (call.status === 200 && !firstAnswered.has(key)) firstAnswered.set(key, call.at);
      }
      for (const status of stands.mastodon.statuses) {
        const at = firstAnswered.get(String(status.idempotencyKey));
        if (at !== undefined) out.push({ ...marked(status.text), at });
      }
      break;
    }
    case 'bluesky': {
      const arrived = new Map<string, number>();
      for (const call of stands.bluesky.calls) {
        if (call.nsid !== 'com.atproto.repo.createRecord' || call.at < since) continue;
        sends++;
        const key = `${String(call.json?.repo)}/${String(call.json?.rkey)}`;
        if (!arrived.has(key)) arrived.set(key, call.at);
      }
      limited = stands.bluesky.rateLimited;
      for (const record of stands.bluesky.records.values()) {
        const [, , did, , rkey] = record.uri.split('/');
        const at = arrived.get(`${did}/${rkey}`);
        if (at !== undefined) out.push({ ...marked(record.value.text), at });
      }
      break;
    }
    case 'facebook':
    case 'instagram':
    case 'threads': {
      const seen = metaDeliveries(stands, platform, since);
      for (const made of seen.made) out.push({ ...marked(made.text), at: made.at });
      sends = seen.sends;
      limited = seen.limited;
      break;
    }
    case 'x':
    case 'linkedin': {
      const stand = stands[platform];
      for (const call of stand.callsOf('create_post')) {
        if (call.at < since) continue;
        sends++;
        if (call.status === 429) limited++;
      }
      for (const post of stand.posts)
        if (post.at >= since)
          out.push({ ...marked('shown' in post ? post.shown : post.text), at: post.at });
      break;
    }
  }
  return { deliveries: out, sends, limited };
}

function channelsOf(accounts: Account[]): string {
  const counts = new Map<number, number>();
  for (const a of accounts) counts.set(a.plan.channels, (counts.get(a.plan.channels) ?? 0) + 1);
  return [...counts].map(([channels, n]) => (n > 1 ? `${n}×${channels}` : `${channels}`)).join('+');
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (value: number) => (Number.isNaN(value) ? '–' : `${Math.round(value)} ms`);
const pct = (part: number, whole: number) =>
  whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`;
const sleep = (msToWait: number) => new Promise((done) => setTimeout(done, msToWait));
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

/** The environment of both Herald processes: the stand-ins' addresses, API limits out of the way. */
function heraldEnv(url: string, prefix: string, port: number, stands: Stands) {
  return {
    ...benchHeraldEnv(url, prefix, port),
    TELEGRAM_API_BASE_URL: stands.telegram.url,
    DISCORD_API_BASE_URL: stands.discord.url,
    BLUESKY_SERVICE_URL: stands.bluesky.url,
    ...stands.x.env(),
    ...stands.linkedin.env(),
    ...metaEnv(stands, `http://127.0.0.1:${port}`),
    // Mastodon's instance is an address a user gives: the stand-in's is allowed explicitly.
    OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  };
}

function startHerald(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...heraldNodeFlags(), join(DIST_DIR, 'src', 'main.js')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', process.env.BENCH_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
}

/** Waits until a process has finished starting: under 5% of a core over a second. */
async function untilSettled(child: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error('a Herald process exited while starting');
    const before = cpuSeconds(child.pid);
    await sleep(1_000);
    if (cpuSeconds(child.pid) - before < 0.05) return;
  }
}

/** A user, a project, every platform's accounts and channels, and an API key: through the API. */
async function seed(base: string, stands: Stands, config: ReturnType<typeof loadConfig>) {
  const post = postJson(base);
  const { auth } = await registerAdmin(base, config, 'mixed');
  const project = await post('/api/projects', { name: 'Mixed', timezone: 'UTC' }, auth);
  const accounts: Record<Platform, Account[]> = {
    telegram: [],
    discord: [],
    mastodon: [],
    bluesky: [],
    x: [],
    linkedin: [],
    facebook: [],
    instagram: [],
    threads: [],
  };
  // Through OAuth, one at a time (the stand-in's consent page has one signed-in user).
  const connectThroughOAuth = async (platform: 'x' | 'linkedin', signIn: () => void) => {
    signIn();
    const link = await post(
      `/api/projects/${project.id as number}/connections`,
      { platform, redirect_url: 'https://app.example.com/done' },
      auth,
    );
    const consent = await request(link.authorize_url as string);
    await consent.body.dump();
    const back = new URL(String(consent.headers.location));
    const done = await request(`${base}${back.pathname}${back.search}`);
    await done.body.dump();
    return Number(new URL(String(done.headers.location)).searchParams.get('account_id'));
  };
  for (const [index, plan] of PLAN.x.entries()) {
    const user = stands.x.addUser(`mixed${index}`);
    const id = await connectThroughOAuth('x', () => stands.x.signIn(user));
    accounts.x.push({ platform: 'x', index, plan, refs: [`x:${id}:${user.id}`] });
  }
  for (const [index, plan] of PLAN.linkedin.entries()) {
    const member = stands.linkedin.addMember(`Mixed ${index}`);
    const id = await connectThroughOAuth('linkedin', () => stands.linkedin.signIn(member));
    accounts.linkedin.push({
      platform: 'linkedin',
      index,
      plan,
      refs: [`linkedin:${id}:urn:li:person:${member.sub}`],
    });
  }
  const connect = (body: Record<string, unknown>) =>
    post('/api/accounts', { project_id: project.id, ...body }, auth);
  for (const [index, plan] of PLAN.telegram.entries()) {
    const made = await connect({
      platform: 'telegram',
      bot_token: stands.telegram.addBot(`mixed_${index}_bot`),
    });
    const refs: string[] = [];
    await pool(plan.channels, 8, async (c) => {
      const chat = -1003000000000 - index * 1000 - c;
      stands.telegram.addChat({ id: chat, type: 'channel', title: `Mixed ${index}/${c}` });
      await post(`/api/accounts/${made.id as number}/channels`, { chat: String(chat) }, auth);
      refs[c] = `telegram:${made.id as number}:${chat}`;
    });
    accounts.telegram.push({ platform: 'telegram', index, plan, refs });
  }
  for (const [index, plan] of PLAN.discord.entries()) {
    const made = await connect({
      platform: 'discord',
      bot_token: stands.discord.addBot(`mixed-${index}`),
    });
    const refs: string[] = [];
    await pool(plan.channels, 8, async (c) => {
      const channel = stands.discord.addChannel({ name: `mixed-${index}-${c}` });
      await post(`/api/accounts/${made.id as number}/channels`, { channel_id: channel.id }, auth);
      refs[c] = `discord:${made.id as number}:${channel.id}`;
    });
    accounts.discord.push({ platform: 'discord', index, plan, refs });
  }
  await pool(PLAN.mastodon.length, 8, async (index) => {
    const { token, account } = stands.mastodon.addAccount(`mixed${index}`);
    const made = await connect({
      platform: 'mastodon',
      instance_url: stands.mastodon.url,
      access_token: token,
    });
    accounts.mastodon[index] = {
      platform: 'mastodon',
      index,
      plan: PLAN.mastodon[index],
      refs: [`mastodon:${made.id as number}:${account.id}`],
    };
  });
  await pool(PLAN.bluesky.length, 8, async (index) => {
    const account = stands.bluesky.addAccount(`mixed-${index}.bsky.social`);
    const made = await connect({
      platform: 'bluesky',
      identifier: account.handle,
      app_password: account.appPassword,
    });
    accounts.bluesky[index] = {
      platform: 'bluesky',
      index,
      plan: PLAN.bluesky[index],
      refs: [`bluesky:${made.id as number}:${account.did}`],
    };
  });
  const start = async (platform: MetaNetwork) =>
    (
      await post(
        `/api/projects/${project.id as number}/connections`,
        { platform, redirect_url: 'https://app.example.com/done' },
        auth,
      )
    ).authorize_url as string;
  for (const network of META_NETWORKS)
    for (const [index, plan] of PLAN[network].entries()) {
      const ref = await connectMeta(stands, network, index, start, base);
      accounts[network].push({ platform: network, index, plan, refs: [ref] });
    }
  const key = (await post('/api/api-keys', { name: 'bench' }, auth)).key as string;
  // Instagram takes no post without a medium: one JPEG, fetched by the stand-in from Herald.
  const form = new FormData();
  form.append('files', new Blob([fixture('sample.jpg')], { type: 'image/jpeg' }), 'sample.jpg');
  const uploaded = await request(`${base}/api/public/v1/projects/${project.id as number}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const media = (await uploaded.body.json()) as { items?: { id: number }[] };
  if (!media.items?.[0]) throw new Error(`upload failed: ${JSON.stringify(media)}`);
  return { key, projectId: project.id as number, accounts, instagramMedia: media.items[0].id };
}

/**
 * Creates posts with publish_now: each lane (a channel) at its own steady rate, its first post at
 * a random moment of its first interval, so that the lanes' sends are spread and not in step; and
 * the bursts, all at once. At most IN_FLIGHT requests at a time; the rest wait their turn.
 */
class Offer {
  readonly posts: Offered[] = [];
  private readonly waiting: Offered[] = [];
  /** A fill account's burst: created whenever the steady stream leaves a request free. */
  private readonly background: Offered[] = [];
  /** The longest a steady post waited for its create request to leave, ms. */
  longestWaitMs = 0;
  private inFlight = 0;
  private seq = 0;
  private stopped = false;
  private timer?: NodeJS.Timeout;
  createErrors = 0;

  constructor(
    private readonly base: string,
    private readonly key: string,
    private readonly projectId: number,
    private readonly instagramMedia: number,
  ) {}

  /** Starts every lane of these accounts at `share` of its account's ceiling. */
  start(accounts: Account[], share: (account: Account) => number, from = Date.now()): void {
    const lanes: { account: Account; ref: string; intervalMs: number; next: number }[] = [];
    for (const account of accounts) {
      // Posts, so that their messages (a thread's items included) are `share` of the ceiling.
      const rate =
        (share(account) * ceilingRate(account.platform, account.plan)) /
        account.refs.length /
        (SINGLE_POSTS.has(account.platform) ? 1 : MESSAGES_PER_POST);
      const spread = (1000 * account.refs.length) / ceilingRate(account.platform, account.plan);
      for (const ref of account.refs)
        lanes.push({ account, ref, intervalMs: 1000 / rate, next: from + Math.random() * spread });
    }
    const tick = () => {
      if (this.stopped) return;
      const now = Date.now();
      for (const lane of lanes) {
        while (lane.next <= now) {
          this.add(lane.account, lane.ref, false);
          lane.next += lane.intervalMs;
        }
      }
      this.pump();
      this.timer = setTimeout(tick, 5);
    };
    tick();
  }

  burst(account: Account, posts: number, oneChannel: boolean): void {
    for (let i = 0; i < posts; i++)
      this.add(
        account,
        account.refs[oneChannel ? 0 : i % account.refs.length],
        true,
        account.plan.role === 'fill',
      );
    this.pump();
  }

  /** Create requests not yet sent (steady and bursts, fill bursts). */
  backlog(): { steady: number; fill: number } {
    return { steady: this.waiting.length, fill: this.background.length };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Until every request made has been answered. */
  async settled(): Promise<void> {
    while (this.inFlight > 0 || this.waiting.length > 0 || this.background.length > 0)
      await sleep(20);
  }

  private add(account: Account, ref: string, burst: boolean, background = false): void {
    const offered: Offered = {
      seq: this.seq++,
      platform: account.platform,
      account,
      quiet: account.plan.role === 'quiet',
      burst,
      at: 0,
      due: 0,
    };
    offered.due = Date.now();
    this.posts.push(offered);
    (background ? this.background : this.waiting).push(offered);
    refsOf.set(offered.seq, ref);
  }

  private pump(): void {
    while (this.inFlight < IN_FLIGHT && this.waiting.length + this.background.length > 0) {
      const next = this.waiting.shift() ?? this.background.shift()!;
      this.inFlight++;
      void this.create(next).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async create(offered: Offered): Promise<void> {
    offered.at = Date.now();
    if (!offered.burst) this.longestWaitMs = Math.max(this.longestWaitMs, offered.at - offered.due);
    try {
      const res = await request(`${this.base}/api/public/v1/projects/${this.projectId}/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.key}` },
        body: JSON.stringify({
          text: `mx-${offered.seq}`,
          thread: Array.from({ length: messagesOf(offered.seq, offered.platform) - 1 }, (_, i) => ({
            text: `mx-${offered.seq}-${i + 1}`,
          })),
          targets: [{ channel_ref: refsOf.get(offered.seq) }],
          ...(offered.platform === 'instagram' ? { media_ids: [this.instagramMedia] } : {}),
          publish_now: true,
        }),
      });
      const body = (await res.body.json()) as { id?: number };
      if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${JSON.stringify(body)}`);
      offered.id = body.id;
    } catch (error) {
      offered.error = (error as Error).message;
      this.createErrors++;
      if (this.createErrors <= 3) console.error(`create failed: ${offered.error}`);
    }
  }
}

const refsOf = new Map<number, string>();

async function pool(n: number, width: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

type State = 'delivered' | 'waiting' | 'failed' | 'lost';

/**
 * Each offered post's state at `at`: delivered (its message reached the stand-in by then), else
 * failed or waiting as the database has it (queued or publishing), else lost (published without a
 * message, or not stored).
 */
type StatusRows = Map<number, { status: string; error_code: string | null }>;

async function statusRows(db: Client, posts: Offered[]): Promise<StatusRows> {
  const ids = posts.filter((p) => p.id !== undefined).map((p) => p.id!);
  const { rows } = await db.query<{ id: number; status: string; error_code: string | null }>(
    `SELECT p.id, p.status, min(t.error_code) AS error_code
       FROM posts p JOIN post_targets t ON t.post_id = p.id
      WHERE p.id = ANY($1) GROUP BY p.id, p.status`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

function classify(
  byId: StatusRows,
  posts: Offered[],
  delivered: Map<number, number>,
): { state: Map<number, State>; errors: Map<string, number> } {
  const state = new Map<number, State>();
  const errors = new Map<string, number>();
  for (const post of posts) {
    if (post.id === undefined) continue;
    const row = byId.get(post.id);
    if (delivered.has(post.seq)) state.set(post.seq, 'delivered');
    else if (row?.status === 'failed') {
      state.set(post.seq, 'failed');
      const code = row.error_code ?? 'unknown';
      errors.set(code, (errors.get(code) ?? 0) + 1);
    } else if (row && ['queued', 'publishing', 'scheduled'].includes(row.status))
      state.set(post.seq, 'waiting');
    else state.set(post.seq, 'lost');
  }
  return { state, errors };
}

function count(state: Map<number, State>, posts: Offered[]): Record<State, number> {
  const out: Record<State, number> = { delivered: 0, waiting: 0, failed: 0, lost: 0 };
  for (const post of posts) {
    const s = state.get(post.seq);
    if (s) out[s]++;
  }
  return out;
}

/**
 * Where webhook events wait, read from the database every half second: events whose post object
 * is not yet written, sends not yet handed to a lane or the queue, handed but not yet claimed, and
 * claimed (their request under way).
 */
class WebhookStages {
  readonly samples: { at: number; fill: number; hand: number; claim: number; send: number }[] = [];
  private timer?: NodeJS.Timeout;
  private reading = false;

  constructor(private readonly db: Client) {}

  start(): void {
    this.timer = setInterval(() => void this.read(), 500);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const at = Date.now();
      const { rows } = await this.db.query<Record<'fill' | 'hand' | 'claim' | 'send', string>>(
        `SELECT (SELECT count(*) FROM webhook_events WHERE data IS NULL) AS fill,
                count(*) FILTER (WHERE queued_attempt IS DISTINCT FROM attempts) AS hand,
                count(*) FILTER (WHERE queued_attempt = attempts
                                   AND (locked_until IS NULL OR locked_until < now())) AS claim,
                count(*) FILTER (WHERE locked_until >= now()) AS send
           FROM webhook_sends WHERE status = 'pending'`,
      );
      const row = rows[0];
      this.samples.push({
        at,
        fill: Number(row.fill),
        hand: Number(row.hand),
        claim: Number(row.claim),
        send: Number(row.send),
      });
    } finally {
      this.reading = false;
    }
  }
}

/** A webhook receiver that answers 204 at once and keeps when each post's event first arrived. */
class WebhookReceiver {
  /** Post id → the first arrival of its event, ms. */
  readonly arrivals = new Map<number, number>();
  events = 0;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = Date.now();
        res.writeHead(204).end();
        this.events++;
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString()) as { data?: { id?: number } };
          const id = Number(event.data?.id);
          if (Number.isInteger(id) && !this.arrivals.has(id)) this.arrivals.set(id, at);
        } catch {
          // Not an event: counted, never matched to a post.
        }
      });
    });
    // Kept-alive connections stay open as long as Herald keeps them.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((done) => this.server?.close(done));
  }
}

interface Herald {
  api: ChildProcess;
  worker: ChildProcess;
  stands: Stands;
  db: Client;
  offer: () => Offer;
  accounts: Record<Platform, Account[]>;
  receiver: WebhookReceiver | null;
  stop: () => Promise<void>;
}

async function startAll(): Promise<Herald> {
  const stands: Stands = {
    telegram: (await new TelegramStandIn().start())
      .enforceLimits({ botMessagesPerSecond: 30, chatMessagesPerMinute: 20 })
      .answerAfter(LATENCY_MS, JITTER_MS),
    // Discord's limits are the stand-in's own unless told otherwise.
    discord: (await new DiscordStandIn().start()).answerAfter(LATENCY_MS, JITTER_MS),
    // Mastodon's statuses per 3 h per account are the stand-in's own limits.
    mastodon: (await new MastodonStandIn().start()).answerAfter(LATENCY_MS, JITTER_MS),
    bluesky: (await new BlueskyStandIn().start()).answerAfter(LATENCY_MS, JITTER_MS),
    x: (await new XStandIn().start()).answerAfter(LATENCY_MS, JITTER_MS),
    linkedin: (await new LinkedInStandIn().start()).answerAfter(LATENCY_MS, JITTER_MS),
    ...(await startMetaStands(LATENCY_MS, JITTER_MS)),
  };
  const { name, url } = await createMigratedDatabase();
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  const env = heraldEnv(url, prefix, port, stands);
  stands.x.registerCallback(`http://127.0.0.1:${port}/api/oauth/x/callback`);
  stands.linkedin.registerCallback(`http://127.0.0.1:${port}/api/oauth/linkedin/callback`);
  const api = startHerald(env);
  const children: ChildProcess[] = [api];
  const db = new Client({ connectionString: url });
  await db.connect();
  const receiver = WEBHOOKS ? new WebhookReceiver() : null;
  const stop = async () => {
    for (const child of children) {
      if (child.exitCode !== null) continue;
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    }
    await receiver?.stop();
    await db.end();
    await Promise.all(Object.values(stands).map((stand) => stand.stop()));
    await dropTestDatabase(name);
    await deleteRedisKeys(REDIS_URL, prefix);
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitUntilAnswers(`${base}/api/public/v1/openapi.json`, api, 'Herald');
    const started = Date.now();
    const { key, projectId, accounts, instagramMedia } = await seed(base, stands, loadConfig(env));
    if (receiver) {
      const hook = await postJson(base)(
        `/api/public/v1/projects/${projectId}/webhooks`,
        { url: await receiver.start(), events: ['post.published', 'post.failed'] },
        `Bearer ${key}`,
      );
      if (hook.id === undefined) throw new Error('the webhook endpoint was not made');
    }
    console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s through the API`);
    const worker = startHerald({ ...env, APP_ROLE: 'worker', PORT: String(await freePort()) });
    children.push(worker);
    await sleep(3_000);
    await untilSettled(worker);
    await untilSettled(api);
    return {
      api,
      worker,
      stands,
      db,
      accounts,
      receiver,
      offer: () => new Offer(base, key, projectId, instagramMedia),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Until no offered post is queued or publishing, or `seconds` have passed. */
async function drain(db: Client, posts: Offered[], seconds: number): Promise<void> {
  const ids = posts.filter((p) => p.id !== undefined).map((p) => p.id!);
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const { rows } = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM posts WHERE id = ANY($1) AND status IN ('queued', 'publishing', 'scheduled')`,
      [ids],
    );
    if (Number(rows[0].n) === 0) return;
    await sleep(1_000);
  }
}

async function mixed(herald: Herald): Promise<void> {
  const { stands, db, accounts } = herald;
  console.log(
    `\nMIXED RUN: ${SECONDS} s measured after ${WARMUP_SECONDS} s of warm-up; busy accounts offered ${OFFER}× their ceiling, ` +
      `quiet ones ${QUIET_OFFER}×; stand-ins answer in ${LATENCY_MS} ± ${JITTER_MS} ms; load ${load()}`,
  );
  const offer = herald.offer();
  const t0 = Date.now();
  const windowStart = t0 + WARMUP_SECONDS * 1000;
  const windowEnd = windowStart + SECONDS * 1000;
  const burstAt = windowStart + (SECONDS * 1000) / 3;
  const all = PLATFORMS.flatMap((platform) => accounts[platform]);
  offer.start(
    all.filter((account) => account.plan.role !== 'fill'),
    (account) => (account.plan.role === 'quiet' ? QUIET_OFFER : OFFER),
    t0,
  );
  const cpu0 = { worker: cpuSeconds(herald.worker.pid), api: cpuSeconds(herald.api.pid) };
  const stages = herald.receiver ? new WebhookStages(db) : null;
  stages?.start();
  const progress = setInterval(() => {
    const { steady, fill } = offer.backlog();
    console.log(
      `  ${((Date.now() - t0) / 1000).toFixed(0)} s: ${offer.posts.length} posts offered, creates not yet sent ${steady} (+${fill} of fill bursts); load ${load()}`,
    );
  }, 20_000);
  await sleep(burstAt - Date.now());
  for (const account of all)
    if (account.plan.burst)
      offer.burst(account, account.plan.burst.posts, account.plan.burst.oneChannel);
  console.log(`burst sent at ${((burstAt - t0) / 1000).toFixed(0)} s; load ${load()}`);
  await sleep(windowEnd - Date.now());
  offer.stop();
  const workerCpu = cpuSeconds(herald.worker.pid) - cpu0.worker;
  const apiCpu = cpuSeconds(herald.api.pid) - cpu0.api;
  const endLoad = load();
  clearInterval(progress);
  const lateCreates = offer.backlog();
  await offer.settled();
  console.log(
    `offer stopped; creates not yet sent then: ${lateCreates.steady} (+${lateCreates.fill} of fill bursts); ` +
      `the longest a steady post waited for its create request: ${(offer.longestWaitMs / 1000).toFixed(1)} s`,
  );
  const deliveredAt = (platform: Platform) => {
    const first = new Map<number, number>();
    for (const d of byPlatform.get(platform)!.deliveries)
      if (!first.has(d.seq) || first.get(d.seq)! > d.at) first.set(d.seq, d.at);
    return first;
  };
  // The database is read before the stand-ins: a post it shows published has reached its stand-in.
  const atEnd = new Map<Platform, ReturnType<typeof classify>>();
  const rows = await statusRows(db, offer.posts);
  const snapshotAfter = (Date.now() - windowEnd) / 1000;
  const byPlatform = new Map(PLATFORMS.map((p) => [p, deliveries(stands, p, t0)]));
  for (const platform of PLATFORMS) {
    const posts = offer.posts.filter((p) => p.platform === platform);
    atEnd.set(platform, classify(rows, posts, deliveredAt(platform)));
  }
  const drainStart = Date.now();
  // A fill account's posts beyond its window wait for the window, an hour or more.
  await drain(
    db,
    offer.posts.filter((p) => p.account.plan.role !== 'fill'),
    DRAIN_SECONDS,
  );
  const drainedAfter = (Date.now() - drainStart) / 1000;
  await sleep(1_000);
  for (const platform of PLATFORMS) byPlatform.set(platform, deliveries(stands, platform, t0));
  let totalDelivered = 0;

  console.log(
    `\nceiling of a platform = Σ over its busy accounts of min(account limit / window, channels × channel limit / window) × ${SECONDS} s ` +
      `(the measured window, ${WARMUP_SECONDS}–${WARMUP_SECONDS + SECONDS} s after the first post); ` +
      `delivered = messages reaching the stand-in in that window from busy accounts (the quiet account is reported apart)`,
  );
  for (const platform of PLATFORMS) {
    const posts = offer.posts.filter((p) => p.platform === platform && p.id !== undefined);
    const { deliveries: made, sends, limited } = byPlatform.get(platform)!;
    const first = deliveredAt(platform);
    // In the order the stand-in made them: each item once, and each after the one before.
    const perItem = new Map<string, number>();
    const lastItem = new Map<number, number>();
    let outOfOrder = 0;
    for (const d of made) {
      perItem.set(`${d.seq}/${d.item}`, (perItem.get(`${d.seq}/${d.item}`) ?? 0) + 1);
      if (d.item !== (lastItem.get(d.seq) ?? -1) + 1) outOfOrder++;
      lastItem.set(d.seq, Math.max(d.item, lastItem.get(d.seq) ?? -1));
    }
    const duplicates = [...perItem.values()].filter((n) => n > 1).length;
    const threads = posts.filter((p) => messagesOf(p.seq, platform) > 1).length;
    const busy = accounts[platform].filter((a) => a.plan.role === undefined);
    const ceilingPerS = busy.reduce((sum, a) => sum + ceilingRate(platform, a.plan), 0);
    const ceiling = ceilingPerS * SECONDS;
    const busySeqs = new Set(
      posts.filter((p) => p.account.plan.role === undefined).map((p) => p.seq),
    );
    const quietSeqs = new Set(posts.filter((p) => p.quiet).map((p) => p.seq));
    const inWindow = made.filter((d) => d.at >= windowStart && d.at < windowEnd);
    const delivered = inWindow.filter((d) => busySeqs.has(d.seq)).length;
    const quietDelivered = inWindow.filter((d) => quietSeqs.has(d.seq)).length;
    totalDelivered += inWindow.length;
    const delays = (filter: (p: Offered) => boolean) =>
      posts.filter((p) => filter(p) && first.has(p.seq)).map((p) => first.get(p.seq)! - p.at);
    const busyDelays = delays(
      (p) => p.account.plan.role === undefined && p.at >= windowStart && p.at < windowEnd,
    );
    const quietDelays = delays((p) => p.quiet && p.at >= windowStart && p.at < windowEnd);
    const end = atEnd.get(platform)!;
    const endCount = count(end.state, posts);
    const final = classify(await statusRows(db, posts), posts, first);
    const finalCount = count(final.state, posts);
    // How long the limits need for what waited at the end: the longest busy account's backlog.
    let backlogS = 0;
    for (const account of busy) {
      const waiting = posts.filter(
        (p) => p.account === account && end.state.get(p.seq) === 'waiting',
      ).length;
      backlogS = Math.max(backlogS, waiting / ceilingRate(platform, account.plan));
    }
    // Each second of the window with no message made while a post of an account whose limits
    // had room (any but a fill account) had waited over a second since its create request, or
    // since its last container that had to process at Meta was ready.
    const sentIn = new Set(inWindow.map((d) => Math.floor((d.at - windowStart) / 1000)));
    const waitingPosts = posts.filter((p) => p.account.plan.role !== 'fill');
    const processing = processingAtMeta(stands, platform);
    const ableSince = (p: Offered, to: number) =>
      Math.max(
        p.at,
        ...(processing.get(p.seq) ?? []).filter((c) => c.since < to).map((c) => c.readyAt),
      );
    let idleSeconds = 0;
    for (let second = 0; second < SECONDS; second++) {
      if (sentIn.has(second)) continue;
      const from = windowStart + second * 1000;
      const to = from + 1000;
      if (
        waitingPosts.some(
          (p) => ableSince(p, to) <= from - 1000 && (first.get(p.seq) ?? Infinity) >= to,
        )
      )
        idleSeconds++;
    }
    const offeredInRun = posts.length;
    console.log(`\n${platform.toUpperCase()} (${PUBLISHED[platform].words})`);
    console.log(
      `  accounts: ${busy.length} busy (${channelsOf(busy)} channels), 1 quiet (${channelsOf(accounts[platform].filter((a) => a.plan.role === 'quiet'))} channels)` +
        `${accounts[platform].some((a) => a.plan.role === 'fill') ? ', 1 fill' : ''}; ` +
        `ceiling ${ceilingPerS.toFixed(2)} msg/s = ${ceiling.toFixed(0)} messages in ${SECONDS} s`,
    );
    // Where the ceiling over the window is a handful of posts (a day's window), the share of it
    // says more about when the offer fell than about delivery: what was offered, and delivered.
    const offeredBusy = posts.filter(
      (p) => busySeqs.has(p.seq) && p.at >= windowStart && p.at < windowEnd,
    );
    const offeredDelivered = offeredBusy.filter((p) => first.has(p.seq)).length;
    console.log(
      `  delivered in the window: ${delivered} = ${(delivered / SECONDS).toFixed(2)} msg/s = ${pct(delivered, ceiling)} of the ceiling (target ≥ 90%); quiet account ${quietDelivered}; ` +
        `busy accounts' posts created in the window: ${offeredBusy.length}, delivered by the end ${offeredDelivered} = ${pct(offeredDelivered, offeredBusy.length)}`,
    );
    console.log(
      `  rate-limit answers: ${limited} of ${sends} sends = ${pct(limited, sends)} (target < 1%); ${threads} threads of ${1 + THREAD_ITEMS} messages; ` +
        `duplicate items (made more than once): ${duplicates}; items out of order: ${outOfOrder}`,
    );
    console.log(
      `  seconds of the window without a message while a post had waited over 1 s (target 0): ${idleSeconds} of ${SECONDS}`,
    );
    console.log(
      `  offered ${offeredInRun} posts (${posts.filter((p) => p.burst).length} in the burst); at the end of the window (read ${snapshotAfter.toFixed(1)} s after): delivered ${endCount.delivered}, ` +
        `waiting ${endCount.waiting} (the limits need ${backlogS.toFixed(1)} s for the longest account's), failed ${endCount.failed}, lost ${endCount.lost}`,
    );
    console.log(
      `  after waiting up to ${DRAIN_SECONDS} s (${drainedAfter.toFixed(0)} s): delivered ${finalCount.delivered}, still waiting ${finalCount.waiting}, ` +
        `failed ${finalCount.failed}${final.errors.size ? ` (${[...final.errors].map(([c, n]) => `${c} ${n}`).join(', ')})` : ''}, lost ${finalCount.lost}`,
    );
    console.log(
      `  publish → delivery (create request sent → message at the stand-in), posts created in the window: ` +
        `busy p50 ${ms(percentile(busyDelays, 50))} p99 ${ms(percentile(busyDelays, 99))} (they queue behind the limits); ` +
        `quiet p50 ${ms(percentile(quietDelays, 50))} p99 ${ms(percentile(quietDelays, 99))}`,
    );
    const burstPosts = posts.filter((p) => p.burst);
    if (burstPosts.length > 0) {
      const burstDone = Math.max(...burstPosts.map((p) => first.get(p.seq) ?? windowEnd));
      const quiet = (from: number, to: number) =>
        delays((p) => p.quiet && p.at >= from && p.at < to);
      const before = quiet(burstAt - 30_000, burstAt);
      const during = quiet(burstAt, Math.min(burstDone, windowEnd));
      const burstAccount = burstPosts[0].account;
      console.log(
        `  burst: ${burstPosts.length} posts to account ${burstAccount.index} (${burstAccount.plan.burst!.oneChannel ? 'one channel' : `its ${burstAccount.refs.length} channels`}), ` +
          `its last delivered ${((burstDone - burstAt) / 1000).toFixed(1)} s after; the quiet account's delay 30 s before: ` +
          `p50 ${ms(percentile(before, 50))} p99 ${ms(percentile(before, 99))} (${before.length} posts), during: ` +
          `p50 ${ms(percentile(during, 50))} p99 ${ms(percentile(during, 99))} (${during.length} posts)`,
      );
    }
    const fill = accounts[platform].find((a) => a.plan.role === 'fill');
    if (fill) {
      const fillPosts = posts.filter((p) => p.account === fill);
      const { limit, windowS } = PUBLISHED[platform].account;
      console.log(
        `  fill: ${fillPosts.length} posts at once to one account, whose window allows ${Math.floor(limit)} in ${windowS / 3600} h: ` +
          `delivered ${fillPosts.filter((p) => first.has(p.seq)).length}, ` +
          `waiting ${fillPosts.filter((p) => final.state.get(p.seq) === 'waiting').length} at the end`,
      );
    }
    if (platform === 'bluesky') {
      const sessions = new Map<string, number>();
      for (const call of stands.bluesky.callsOf('server.createSession')) {
        const id = String(call.json?.identifier);
        sessions.set(id, (sessions.get(id) ?? 0) + 1);
      }
      const counts = [...sessions.values()];
      console.log(
        `  sessions made per account over the run, the connect's included (target 1): min ${Math.min(...counts)}, max ${Math.max(...counts)} over ${counts.length} accounts; ` +
          `refreshSession calls ${stands.bluesky.callsOf('server.refreshSession').length}`,
      );
    }
  }
  if (herald.receiver)
    await webhookReport(herald.receiver, stages!, db, offer.posts, windowStart, windowEnd);
  console.log(
    `\nworker CPU over the window and warm-up: ${workerCpu.toFixed(1)} s (${((1000 * workerCpu) / totalDelivered).toFixed(2)} ms per message delivered in the window), ` +
      `api ${apiCpu.toFixed(1)} s for ${offer.posts.length} creates; create errors ${offer.createErrors}; load at the end of the window ${endLoad}`,
  );
}

/**
 * Publication → receiver: from a post's `published_at` to its event's first arrival, over the posts
 * published in the window, and how long after the run's last publication the last event came.
 */
async function webhookReport(
  receiver: WebhookReceiver,
  stages: WebhookStages,
  db: Client,
  posts: Offered[],
  windowStart: number,
  windowEnd: number,
): Promise<void> {
  const ids = posts.filter((p) => p.id !== undefined).map((p) => p.id!);
  const { rows } = await db.query<{ id: number; at: string }>(
    `SELECT id, extract(epoch FROM published_at) * 1000 AS at
       FROM posts WHERE id = ANY($1) AND published_at IS NOT NULL`,
    [ids],
  );
  // Events still on their way once every post is final: wait until none has come for 5 s.
  for (let quiet = 0, seen = receiver.events; quiet < 5; quiet++) {
    await sleep(1_000);
    if (receiver.events !== seen) [quiet, seen] = [-1, receiver.events];
  }
  stages.stop();
  const published = rows.map((row) => ({ id: row.id, at: Number(row.at) }));
  const inWindow = published.filter((p) => p.at >= windowStart && p.at < windowEnd);
  const delays = inWindow
    .filter((p) => receiver.arrivals.has(p.id))
    .map((p) => receiver.arrivals.get(p.id)! - p.at);
  const missing = published.filter((p) => !receiver.arrivals.has(p.id)).length;
  const lastPublished = Math.max(...published.map((p) => p.at));
  const lastEvent = Math.max(...published.map((p) => receiver.arrivals.get(p.id) ?? 0));
  const perSecond = new Map<number, number>();
  for (const at of receiver.arrivals.values()) {
    const second = Math.floor(at / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  const publishedPerSecond = new Map<number, number>();
  for (const p of published) {
    const second = Math.floor(p.at / 1000);
    publishedPerSecond.set(second, (publishedPerSecond.get(second) ?? 0) + 1);
  }
  console.log(
    `\nWEBHOOKS (one endpoint, a receiver answering at once): ${receiver.events} deliveries for ${published.length} posts published, ` +
      `${missing} of them without an event; published in the window → received: p50 ${ms(percentile(delays, 50))} ` +
      `p99 ${ms(percentile(delays, 99))} max ${ms(Math.max(...delays))} (target p99 ≤ 2 s, ${delays.length} events); ` +
      `busiest second: ${Math.max(...perSecond.values())} events received, ${Math.max(...publishedPerSecond.values())} posts published; ` +
      `last event ${((lastEvent - lastPublished) / 1000).toFixed(1)} s after the last publication`,
  );
  const waiting = (s: WebhookStages['samples'][number]) => s.fill + s.hand + s.claim + s.send;
  const worst = [...stages.samples].sort((a, b) => waiting(b) - waiting(a)).slice(0, 8);
  const max = (key: 'fill' | 'hand' | 'claim' | 'send') =>
    Math.max(0, ...stages.samples.map((s) => s[key]));
  console.log(
    `  where events waited (read every 0.5 s; most at once): post object to write ${max('fill')}, ` +
      `send to hand over ${max('hand')}, handed, to claim ${max('claim')}, claimed, answer awaited ${max('send')}; ` +
      `the ${worst.length} fullest readings (s after the window's start: write/hand/claim/answer): ` +
      worst
        .sort((a, b) => a.at - b.at)
        .map(
          (s) =>
            `${((s.at - windowStart) / 1000).toFixed(1)} s ${s.fill}/${s.hand}/${s.claim}/${s.send}`,
        )
        .join(', '),
  );
}

/** The worker's CPU per delivered message, each platform alone; and its CPU doing nothing. */
async function cpu(herald: Herald): Promise<void> {
  const { stands, db, accounts, worker } = herald;
  console.log(
    `\nCPU RUNS: each platform alone for ${CPU_SECONDS} s, its busy accounts offered ${CPU_OFFER}× their ceiling (nothing waits); load ${load()}`,
  );
  const idle0 = cpuSeconds(worker.pid);
  await sleep(IDLE_SECONDS * 1000);
  const idlePerS = (cpuSeconds(worker.pid) - idle0) / IDLE_SECONDS;
  console.log(
    `worker idle: ${(idlePerS * 1000).toFixed(1)} ms of CPU per second (${IDLE_SECONDS} s, nothing queued)`,
  );
  for (const platform of PLATFORMS) {
    const offer = herald.offer();
    const t0 = Date.now();
    const cpu0 = cpuSeconds(worker.pid);
    offer.start(
      accounts[platform].filter((a) => a.plan.role === undefined),
      () => CPU_OFFER,
      t0,
    );
    await sleep(CPU_SECONDS * 1000);
    offer.stop();
    await offer.settled();
    await drain(db, offer.posts, 30);
    const seconds = (Date.now() - t0) / 1000;
    const cpuS = cpuSeconds(worker.pid) - cpu0;
    const made = deliveries(stands, platform, t0).deliveries.length;
    console.log(
      `${platform}: ${made} messages in ${seconds.toFixed(1)} s; worker ${(cpuS * 1000).toFixed(0)} ms of CPU = ` +
        `${((1000 * cpuS) / made).toFixed(2)} ms per message (${((1000 * (cpuS - idlePerS * seconds)) / made).toFixed(2)} ms beyond idle); load ${load()}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`Herald from ${DIST_DIR}, one api and one worker process; load ${load()}`);
  const herald = await startAll();
  try {
    if (MODE === 'all' || MODE === 'mixed') await mixed(herald);
    if (MODE === 'all' || MODE === 'cpu') await cpu(herald);
  } finally {
    await herald.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
