import { existsSync } from 'node:fs';
import { isIP } from 'node:net';

export type AppRole = 'all' | 'api' | 'worker';
export const APP_ROLES: readonly AppRole[] = ['all', 'api', 'worker'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface RateLimitConfig {
  /** Length of one fixed window, in milliseconds (60 s in production). */
  windowMs: number;
  upload: number;
  createPost: number;
  publish: number;
  other: number;
  /** Failed authentications allowed per client IP and window. */
  authFailuresPerIp: number;
  /** Password sign-in: the window failures are counted in (15 minutes in production). */
  signInWindowMs: number;
  /** Failed sign-ins allowed per account, and per client address, in one window. */
  signInFailuresPerAccount: number;
  signInFailuresPerAddress: number;
  /** Registrations allowed per client address in an hour. */
  registrationsPerAddressPerHour: number;
  /** Application API requests allowed per user and minute. */
  appRequestsPerMinute: number;
  /** AI generations allowed per user and hour. */
  aiGenerationsPerHour: number;
  /** `RATE_LIMIT_ENABLED=false` turns every request limit off; for benchmarks only. */
  enabled: boolean;
}

/**
 * A job in hand spends its time waiting: for the platform's answer and for its pacing slot (a
 * timer). It costs memory, not a CPU, so a worker holds enough of them to keep every bot at
 * Telegram's ceiling: 30 messages/s per bot × about a second of answer and wait, for ten busy bots
 * at once, with room (docs/performance.md#worker-concurrency).
 */
export const PUBLICATION_CONCURRENCY_DEFAULT = 400;

/** The publication pipeline: queue worker, retries, recovery sweep, Telegram pacing. */
export interface PublicationConfig {
  /** Jobs one worker process holds at once (sized for I/O: see PUBLICATION_CONCURRENCY_DEFAULT). */
  concurrency: number;
  /**
   * Bound on each queue and pacing call to Redis (adding a job, a worker's pacing check, closing a
   * queue at stop; the webhook queue's too), which otherwise hangs while Redis is away.
   */
  queueCallTimeoutMs: number;
  /**
   * Bull's job lock, and how often a worker looks for jobs whose worker died (their lock ran out):
   * a job of a killed worker is taken again within about twice this.
   */
  lockMs: number;
  /** How often the recovery sweep looks for posts without a live job. */
  sweepIntervalMs: number;
  /** Transient failures of one target before it fails for good. */
  maxTries: number;
  /** First retry delay; doubles with every further failure. */
  retryBaseMs: number;
  /** Wait for one Telegram send before its outcome counts as unknown. */
  sendTimeoutMs: number;
  /** Telegram pacing: messages per second per bot, and per minute per chat. */
  botMessagesPerSecond: number;
  chatMessagesPerMinute: number;
}

export type MediaStorageDriverName = 'local' | 's3';
export const MEDIA_STORAGE_DRIVERS: readonly MediaStorageDriverName[] = ['local', 's3'];

/** An S3-compatible bucket for media; present only when MEDIA_STORAGE_DRIVER is `s3`. */
export interface S3Config {
  bucket: string;
  region: string;
  /** Endpoint of an S3-compatible store (MinIO, R2…); null for AWS itself. */
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key`. */
  forcePathStyle: boolean;
}

/** Operations (docs/api-rules.md#operations): metrics, the queue dashboard, stopping. */
export interface OpsConfig {
  /** Bearer token of GET /metrics; null turns the route off (404). */
  metricsToken: string | null;
  /** Port of a worker's metrics listener (a worker serves no other HTTP); 0 picks a free one. */
  metricsPort: number;
  /** `METRICS_HTTP_ENABLED=false` stops timing requests; for the metrics cost benchmark only. */
  httpMetrics: boolean;
  /**
   * How long stopping (SIGTERM, SIGINT) waits for the requests and jobs in hand before the process
   * exits anyway.
   */
  shutdownTimeoutMs: number;
  /**
   * Finished and failed jobs each queue keeps for the queue dashboard, so an operator sees what
   * happened and why: at most this many of each, none older than this.
   */
  queueHistory: { jobs: number; ageSeconds: number };
}

/** Webhook delivery (docs/api-rules.md#webhooks). */
export interface WebhookConfig {
  /** Delay before each retry of a failed delivery; one more attempt than entries. */
  retryDelaysMs: readonly number[];
  /** An endpoint is disabled after this many events in a row failed every attempt. */
  disableAfterEvents: number;
  /** Wait for one receiver's answer (10 s by default). */
  timeoutMs: number;
  /** Deliveries one worker process runs at once. */
  concurrency: number;
  /**
   * Deliveries to one endpoint a worker process runs at once: an endpoint that hangs holds no more
   * than this, and the others' deliveries go on in the rest.
   */
  endpointConcurrency: number;
  /**
   * A worker's hold on a delivery attempt (its queue job's lock): the attempt of a worker that died
   * is made again by another within about twice this.
   */
  lockMs: number;
  /** How often the sweep enqueues what Redis missed and purges the old delivery log. */
  sweepIntervalMs: number;
}

/** The PostgreSQL connections one process keeps. */
export interface DatabasePoolConfig {
  /** Connections at most. */
  size: number;
  /**
   * How long a connection may stay idle before it closes; 0: never. A new connection is a new
   * PostgreSQL backend (a fork, cold caches, statements prepared again): closing idle ones
   * quickly makes a process under uneven load reconnect over and over, and every reconnection
   * delays the requests queued behind it.
   */
  idleMs: number;
}

export interface PlatformsConfig {
  /** Discord's REST API, version included. */
  discordApiBaseUrl: string;
  /** The Bluesky service an account signs in to when it names none. */
  blueskyServiceUrl: string;
}

export interface AppConfig {
  port: number;
  databaseUrl: string;
  databasePool: DatabasePoolConfig;
  redisUrl: string;
  /** Prefix of every Redis key Herald writes (queues, rate limits), so instances of one deployment share them. */
  redisKeyPrefix: string;
  publicBaseUrl: string;
  mediaStorageDriver: MediaStorageDriverName;
  mediaStorageDir: string;
  /** Set when `mediaStorageDriver` is `s3`. */
  s3: S3Config | null;
  /**
   * Private ranges that requests to user-given URLs (media by link, webhook receivers) may reach
   * anyway: development and tests only.
   */
  outboundAllowCidrs: readonly string[];
  mediaFetchTimeoutMs: number;
  telegramApiBaseUrl: string;
  /** The operator's addresses of platforms with one public API (never checked as outbound). */
  platforms: PlatformsConfig;
  aiApiBaseUrl: string | null;
  aiApiKey: string | null;
  /** Chat-completions model for post and template text. */
  aiTextModel: string;
  /** Images model; asked for `b64_json`. */
  aiImageModel: string;
  /** Wait for one AI provider call, in milliseconds. */
  aiTimeoutMs: number;
  appSecret: string;
  appRole: AppRole;
  logLevel: LogLevel;
  /** Express `trust proxy`: which hops' X-Forwarded-For to believe for the client address. */
  trustProxy: string;
  /** scrypt's cost for new password hashes, as log2(N); older hashes are upgraded at sign-in. */
  passwordHashLog2N: number;
  /**
   * How long a process may authenticate a key from memory; revocations reach every process at
   * once through Redis, so this bounds only one whose announcement was lost. 0: every request
   * reads the database.
   */
  apiKeyCacheMs: number;
  rateLimits: RateLimitConfig;
  publication: PublicationConfig;
  ops: OpsConfig;
  webhooks: WebhookConfig;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

type Env = Record<string, string | undefined>;

/** Webhook retries: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
const MAX_WEBHOOK_RETRIES = 20;
/** One retry waits at most a day. */
const MAX_WEBHOOK_RETRY_DELAY_MS = 86_400_000;

/** Where the local defaults live (the quick start writes them): `.env` in the working directory. */
export const ENV_FILE = '.env';

/**
 * The environment the service, the CLI and the TypeORM CLI are configured from: the process's
 * own variables, completed by the `.env` file when there is one (Node's process.loadEnvFile: a
 * variable already set, even empty, wins over the file). Tests pass their variables to
 * loadConfig directly and never read a file.
 */
export function readEnvironment(file = ENV_FILE): Env {
  if (existsSync(file)) {
    try {
      process.loadEnvFile(file);
    } catch (error) {
      throw new ConfigError([`${file} could not be read: ${(error as Error).message}`]);
    }
  }
  return process.env;
}

/** Reads and validates the environment once; errors name the variable, never its value. */
export function loadConfig(env: Env): AppConfig {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);

  const config: AppConfig = {
    port: read.integer('PORT', 3000, 0, 65535),
    databaseUrl: read.url('DATABASE_URL', null, ['postgres:', 'postgresql:']),
    databasePool: {
      size: read.integer('DATABASE_POOL_SIZE', 20, 1, 1_000),
      idleMs: read.integer('DATABASE_POOL_IDLE_MS', 300_000, 0, 86_400_000),
    },
    redisUrl: read.url('REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisKeyPrefix: read.pattern('REDIS_KEY_PREFIX', 'herald', /^[A-Za-z0-9:_-]{1,64}$/),
    publicBaseUrl: read
      .url('PUBLIC_BASE_URL', 'http://localhost:3000', ['http:', 'https:'])
      .replace(/\/+$/, ''),
    mediaStorageDriver: read.oneOf('MEDIA_STORAGE_DRIVER', 'local', MEDIA_STORAGE_DRIVERS),
    mediaStorageDir: read.string('MEDIA_STORAGE_DIR', './.herald/media'),
    s3: null,
    // MEDIA_FETCH_ALLOW_CIDRS is the list's earlier name, still read when the new one is unset.
    outboundAllowCidrs: read.cidrList(
      read.isSet('OUTBOUND_ALLOW_CIDRS') ? 'OUTBOUND_ALLOW_CIDRS' : 'MEDIA_FETCH_ALLOW_CIDRS',
    ),
    mediaFetchTimeoutMs: read.integer('MEDIA_FETCH_TIMEOUT_MS', 30_000, 1, 600_000),
    telegramApiBaseUrl: read
      .url('TELEGRAM_API_BASE_URL', 'https://api.telegram.org', ['http:', 'https:'])
      .replace(/\/+$/, ''),
    platforms: {
      discordApiBaseUrl: read
        .url('DISCORD_API_BASE_URL', 'https://discord.com/api/v10', ['http:', 'https:'])
        .replace(/\/+$/, ''),
      blueskyServiceUrl: read
        .url('BLUESKY_SERVICE_URL', 'https://bsky.social', ['http:', 'https:'])
        .replace(/\/+$/, ''),
    },
    aiApiBaseUrl: read.optionalUrl('AI_API_BASE_URL')?.replace(/\/+$/, '') ?? null,
    aiApiKey: read.optionalString('AI_API_KEY'),
    aiTextModel: read.pattern('AI_TEXT_MODEL', 'gpt-4o-mini', /^[\w.:/-]{1,100}$/),
    aiImageModel: read.pattern('AI_IMAGE_MODEL', 'dall-e-3', /^[\w.:/-]{1,100}$/),
    aiTimeoutMs: read.integer('AI_TIMEOUT_MS', 60_000, 1, 600_000),
    appSecret: read.secret('APP_SECRET', 32),
    appRole: read.oneOf('APP_ROLE', 'all', APP_ROLES),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    trustProxy: read.pattern('TRUST_PROXY', 'loopback', /^[A-Za-z0-9.:/, ]{1,500}$/),
    passwordHashLog2N: read.integer('PASSWORD_HASH_LOG2_N', 17, 14, 20),
    apiKeyCacheMs: read.integer('API_KEY_CACHE_MS', 10_000, 0, 300_000),
    rateLimits: {
      windowMs: read.integer('RATE_LIMIT_WINDOW_MS', 60_000, 100, 3_600_000),
      upload: read.integer('RATE_LIMIT_UPLOAD', 10, 1, 1_000_000_000),
      createPost: read.integer('RATE_LIMIT_CREATE_POST', 10, 1, 1_000_000_000),
      publish: read.integer('RATE_LIMIT_PUBLISH', 10, 1, 1_000_000_000),
      other: read.integer('RATE_LIMIT_OTHER', 30, 1, 1_000_000_000),
      authFailuresPerIp: read.integer('RATE_LIMIT_AUTH_FAILURES', 60, 1, 1_000_000_000),
      signInWindowMs: read.integer('SIGNIN_WINDOW_MS', 15 * 60_000, 100, 24 * 3_600_000),
      signInFailuresPerAccount: read.integer('SIGNIN_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
      signInFailuresPerAddress: read.integer('SIGNIN_FAILURES_PER_ADDRESS', 30, 1, 1_000_000),
      registrationsPerAddressPerHour: read.integer(
        'REGISTRATIONS_PER_ADDRESS_PER_HOUR',
        10,
        1,
        1_000_000_000,
      ),
      appRequestsPerMinute: read.integer('APP_RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000_000),
      aiGenerationsPerHour: read.integer('AI_GENERATIONS_PER_HOUR', 30, 1, 1_000_000_000),
      enabled: read.oneOf('RATE_LIMIT_ENABLED', 'true', ['true', 'false']) === 'true',
    },
    publication: {
      concurrency: read.integer(
        'PUBLICATION_CONCURRENCY',
        PUBLICATION_CONCURRENCY_DEFAULT,
        1,
        10_000,
      ),
      queueCallTimeoutMs: read.integer('PUBLICATION_ENQUEUE_TIMEOUT_MS', 2_000, 50, 60_000),
      sweepIntervalMs: read.integer('PUBLICATION_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000),
      lockMs: read.integer('PUBLICATION_LOCK_MS', 30_000, 1_000, 600_000),
      maxTries: read.integer('PUBLICATION_MAX_TRIES', 5, 1, 100),
      retryBaseMs: read.integer('PUBLICATION_RETRY_BASE_MS', 2_000, 1, 600_000),
      sendTimeoutMs: read.integer('TELEGRAM_SEND_TIMEOUT_MS', 30_000, 100, 600_000),
      botMessagesPerSecond: read.integer('TELEGRAM_BOT_MESSAGES_PER_SECOND', 30, 1, 1_000_000),
      chatMessagesPerMinute: read.integer('TELEGRAM_CHAT_MESSAGES_PER_MINUTE', 20, 1, 1_000_000),
    },
    ops: {
      metricsToken: read.optionalSecret('METRICS_TOKEN', 16),
      metricsPort: read.integer('METRICS_PORT', 9464, 0, 65535),
      httpMetrics: read.oneOf('METRICS_HTTP_ENABLED', 'true', ['true', 'false']) === 'true',
      shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 100, 3_600_000),
      queueHistory: {
        jobs: read.integer('QUEUE_HISTORY_JOBS', 1_000, 0, 1_000_000),
        ageSeconds: read.integer('QUEUE_HISTORY_HOURS', 24, 1, 24 * 365) * 3_600,
      },
    },
    webhooks: {
      retryDelaysMs: read.integerList(
        'WEBHOOK_RETRY_DELAYS_MS',
        DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
        MAX_WEBHOOK_RETRIES,
        MAX_WEBHOOK_RETRY_DELAY_MS,
      ),
      disableAfterEvents: read.integer('WEBHOOK_DISABLE_AFTER_EVENTS', 20, 1, 100_000),
      timeoutMs: read.integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      concurrency: read.integer('WEBHOOK_CONCURRENCY', 50, 1, 1000),
      endpointConcurrency: read.integer('WEBHOOK_ENDPOINT_CONCURRENCY', 10, 1, 1000),
      lockMs: read.integer('WEBHOOK_LOCK_MS', 15_000, 1_000, 600_000),
      sweepIntervalMs: read.integer('WEBHOOK_SWEEP_INTERVAL_MS', 10_000, 100, 3_600_000),
    },
  };
  if (config.mediaStorageDriver === 's3') config.s3 = readS3(read);

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...config,
    s3: config.s3 && Object.freeze(config.s3),
    ops: Object.freeze({ ...config.ops, queueHistory: Object.freeze(config.ops.queueHistory) }),
    outboundAllowCidrs: Object.freeze([...config.outboundAllowCidrs]),
    rateLimits: Object.freeze(config.rateLimits),
    publication: Object.freeze(config.publication),
    webhooks: Object.freeze({
      ...config.webhooks,
      retryDelaysMs: Object.freeze([...config.webhooks.retryDelaysMs]),
    }),
  });
}

const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function readS3(read: EnvReader): S3Config {
  const accessKeyId = read.optionalString('S3_ACCESS_KEY_ID');
  const secretAccessKey = read.optionalString('S3_SECRET_ACCESS_KEY');
  // Both or neither: without them the SDK's own chain (instance role, AWS_* variables) applies.
  if ((accessKeyId === null) !== (secretAccessKey === null))
    read.problem('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together');
  const bucket = read.optionalString('S3_BUCKET');
  if (bucket === null) read.problem('S3_BUCKET is required when MEDIA_STORAGE_DRIVER is s3');
  return {
    // Bucket naming rules of S3 (3 to 63 lower-case letters, digits, dots and hyphens).
    bucket: bucket === null ? '' : read.pattern('S3_BUCKET', '', S3_BUCKET_NAME),
    region: read.pattern('S3_REGION', 'us-east-1', /^[a-z0-9-]{1,40}$/),
    endpoint: read.optionalUrl('S3_ENDPOINT')?.replace(/\/+$/, '') ?? null,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: read.oneOf('S3_FORCE_PATH_STYLE', 'false', ['true', 'false']) === 'true',
  };
}

/** Only the database address, for the TypeORM CLI, which needs nothing else. */
export function loadDatabaseUrl(env: Env): string {
  const problems: string[] = [];
  const url = new EnvReader(env, problems).url('DATABASE_URL', null, ['postgres:', 'postgresql:']);
  if (problems.length > 0) throw new ConfigError(problems);
  return url;
}

class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null;
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  optionalSecret(name: string, minLength: number): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    if (value.length < minLength)
      this.problems.push(`${name} must be at least ${minLength} characters long`);
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  }

  /** A comma-separated list of 1..maxItems whole numbers from 0 to max. */
  integerList(
    name: string,
    fallback: readonly number[],
    maxItems: number,
    max: number,
  ): readonly number[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const items = value.split(',').map((item) => item.trim());
    if (
      items.length > maxItems ||
      items.some((item) => !/^\d+$/.test(item) || Number(item) > max)
    ) {
      this.problems.push(
        `${name} must be a comma-separated list of at most ${maxItems} whole numbers from 0 to ${max}`,
      );
      return fallback;
    }
    return items.map(Number);
  }

  pattern(name: string, fallback: string, re: RegExp): string {
    const value = this.raw(name) ?? fallback;
    if (!re.test(value)) this.problems.push(`${name} must match ${re}`);
    return value;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name) ?? fallback;
    if (!allowed.includes(value as T)) {
      this.problems.push(`${name} must be one of: ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, fallback: string | null, protocols: string[]): string {
    const value = this.raw(name) ?? fallback;
    if (value === null) {
      this.problems.push(`${name} is required`);
      return '';
    }
    if (!isUrl(value, protocols)) {
      this.problems.push(
        `${name} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
      );
    }
    return value;
  }

  optionalUrl(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    return this.url(name, null, ['http:', 'https:']);
  }

  secret(name: string, minLength: number): string {
    const value = this.raw(name);
    if (value === undefined) {
      this.problems.push(`${name} is required (at least ${minLength} characters)`);
      return '';
    }
    if (value.length < minLength)
      this.problems.push(`${name} must be at least ${minLength} characters long`);
    return value;
  }

  cidrList(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined) return [];
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    for (const item of items) {
      const [address, bits, ...rest] = item.split('/');
      const family = isIP(address ?? '');
      const max = family === 6 ? 128 : 32;
      if (
        family === 0 ||
        rest.length > 0 ||
        bits === undefined ||
        !/^\d+$/.test(bits) ||
        Number(bits) > max
      ) {
        this.problems.push(
          `${name} must be a comma-separated list of CIDR ranges such as 127.0.0.2/32`,
        );
        return [];
      }
    }
    return items;
  }
}

function isUrl(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
